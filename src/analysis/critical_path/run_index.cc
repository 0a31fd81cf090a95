#include "analysis/critical_path/run_index.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "analysis/analysis_set.h"
#include "analysis/compute_kinds.h"
#include "analysis/input_wait.h"
#include "analysis/op_statistics.h"
#include "analysis/run_sort.h"
#include "model/huge_pages.h"

namespace aiprof::analysis {
namespace {

// Runtime and driver calls that return only once the device work they wait for is done.
bool IsDeviceSyncCall(std::string_view name) {
  static constexpr std::string_view kNames[] = {"cudaDeviceSynchronize",
                                                "cudaStreamSynchronize",
                                                "cudaEventSynchronize",
                                                "cudaThreadSynchronize",
                                                "cuCtxSynchronize",
                                                "cuStreamSynchronize",
                                                "cuEventSynchronize",
                                                "cudaMemcpy",
                                                "cudaMemcpy2D",
                                                "cudaMemcpy3D",
                                                "cudaMemcpyToSymbol",
                                                "cudaMemcpyFromSymbol",
                                                "cuMemcpy",
                                                "cuMemcpyDtoH",
                                                "cuMemcpyHtoD",
                                                "cuMemcpyDtoH_v2",
                                                "cuMemcpyHtoD_v2",
                                                "cuMemcpyDtoD_v2"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

int64_t ParentPid(const std::string& metadata) {
  if (metadata.empty()) return -1;
  const nlohmann::json parsed = nlohmann::json::parse(metadata, nullptr, false);
  if (!parsed.is_object()) return -1;
  auto found = parsed.find("ppid");
  return found != parsed.end() && found->is_number_integer() ? found->get<int64_t>() : -1;
}

// CUPTI's synchronisation type of a CUDA sync record: aiprof's importer writes the number,
// Kineto its name.
uint32_t SyncKindOf(const model::Model& m, uint32_t set, model::StringId key) {
  if (const std::optional<int64_t> number = m.args.Int(set, key)) {
    return static_cast<uint32_t>(*number);
  }
  const std::optional<model::StringId> text = m.args.Text(set, key);
  if (!text) return 0;
  static constexpr std::string_view kNames[] = {"Event Sync", "Stream Wait Event", "Stream Sync",
                                                "Context Sync"};
  const auto found = std::find(std::begin(kNames), std::end(kNames), m.Str(*text));
  return found == std::end(kNames) ? 0 : static_cast<uint32_t>(found - std::begin(kNames)) + 1;
}

bool IsEventRecordCall(std::string_view name) {
  return name.starts_with("cudaEventRecord") || name.starts_with("cuEventRecord");
}

}  // namespace

RunIndex::RunIndex(const model::Model& model, const AnalysisSet& set) : model_(model) {
  IndexTracks();
  ClassifySlices(set);
  IndexFlows();
  FindProcessLinks(set);
  ClassifyThreads(set);
  IndexEventWaits();
}

void RunIndex::IndexTracks() {
  const size_t tracks = model_.tracks.size();
  track_order_ = TrackOrder(model_.slices, tracks);
  thread_tracks_.assign(model_.threads.size(), {});
  for (uint32_t t = 0; t < tracks; ++t) thread_tracks_[model_.tracks.thread[t]].push_back(t);
  process_threads_.assign(model_.processes.size(), {});
  for (uint32_t t = 0; t < model_.threads.size(); ++t) {
    process_threads_[model_.threads.process[t]].push_back(t);
  }
}

void RunIndex::ClassifySlices(const AnalysisSet& set) {
  const model::SliceTable& s = model_.slices;
  const PackedComputeClassification compute =
      ClassifyComputeSlicesPacked(model_, set.communication.ops);
  std::vector<uint8_t> markers_compute(model_.processes.size(), 0);
  for (const OverlapScope& scope : set.overlap.scopes) {
    if (scope.compute_input == ComputeInput::kMarkerRanges) markers_compute[scope.process] = 1;
  }
  // Per name and per category: the roles they give.
  name_role_.assign(model_.strings.size(), 0);
  category_role_.assign(model_.strings.size(), 0);
  for (model::StringId id = 0; id < model_.strings.size(); ++id) {
    const std::string_view text = model_.strings.Get(id);
    if (IsInputWaitName(text)) name_role_[id] |= kRoleInputWait;
    if (IsDeviceSyncCall(text)) name_role_[id] |= kRoleSync;
    if (text.starts_with("c10d::")) name_role_[id] |= kRoleIssue;
    if (text == "cuda_sync") category_role_[id] |= kRoleSkip;
    if (IsDeviceTaskCategory(text)) category_role_[id] |= kRoleDeviceTask;
  }
  slice_code_ = PackedCodes(s.size());
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint8_t kind = compute.kind.Get(row);
    if (compute.device_run
            ? kind == kComputeDeviceTask
            : kind == kComputeFrameworkOp ||
                  (kind == kComputeMarkerRange &&
                   markers_compute[model_.ProcessOfThread(model_.ThreadOfSlice(row))])) {
      slice_code_.Set(row, kCodeCompute);
    }
  }
  for (uint32_t row : model_.steps.slice) {
    if (row != model::kNoRow) slice_code_.Set(row, kCodeStep);
  }
  // Neither steps nor operations are compute (ClassifyComputeSlices).
  for (const model::CommOp& op : set.communication.ops) {
    if (slice_code_.Get(op.slice) == kCodeStep) {
      step_comm_.push_back(op.slice);
    } else {
      slice_code_.Set(op.slice, kCodeComm);
    }
  }
  std::sort(step_comm_.begin(), step_comm_.end());
  const std::vector<CommOpTiming>& timings = set.communication_analysis.ops;
  for (uint32_t i = 0; i < timings.size(); ++i) {
    if (timings[i].comm_op == model::kNoRow) continue;
    comm_of_slice_.push_back({set.communication.ops[timings[i].comm_op].slice, i});
  }
  std::sort(comm_of_slice_.begin(), comm_of_slice_.end());
  match_.assign(timings.size(), model::kNoRow);
  const std::vector<std::vector<uint32_t>> matched = MatchPeerOperations(timings);
  for (uint32_t g = 0; g < matched.size(); ++g) {
    for (uint32_t i : matched[g]) match_[i] = g;
  }
}

void RunIndex::IndexFlows() {
  const model::FlowTable& f = model_.flows;
  const model::SliceTable& s = model_.slices;
  const size_t slices = s.size();
  const model::StringId sync_kind = model_.strings.Find("cuda_sync_kind");
  model::ReserveOnHugePages(flows_, f.size());
  for (uint32_t row = 0; row < f.size(); ++row) {
    const uint32_t from = f.from_slice[row], to = f.to_slice[row];
    if (to >= slices || from >= slices) continue;
    flows_.push_back(row);
    if (skipped(to)) {  // a CUDA sync record: what the call waited for
      sync_targets_.push_back({from, {SyncKindOf(model_, s.args[to], sync_kind), s.track[to], to}});
    }
  }
  // Flows are paired in record order, mostly by the target's start already.
  StableSortRuns(flows_,
                 [&](uint32_t a, uint32_t b) { return s.ts[f.to_slice[a]] < s.ts[f.to_slice[b]]; });
  std::sort(sync_targets_.begin(), sync_targets_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
}

void RunIndex::IndexEventWaits() {
  const model::SliceTable& s = model_.slices;
  const model::StringPool& strings = model_.strings;
  const model::StringId kind_key = strings.Find("cuda_sync_kind");
  const model::StringId stream_key = strings.Find("wait_on_stream");
  const model::StringId record_key = strings.Find("wait_on_cuda_event_record_corr_id");
  const model::StringId correlation_key = strings.Find("correlation");
  std::vector<uint8_t> record_call(strings.size(), 0);
  for (model::StringId id = 0; id < strings.size(); ++id) {
    record_call[id] = IsEventRecordCall(strings.Get(id));
  }
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint32_t args = s.args[row];
    if (args == 0) continue;
    if (record_call[s.name[row]]) {
      if (const std::optional<int64_t> correlation = model_.args.Int(args, correlation_key)) {
        const uint32_t process = model_.ProcessOfThread(model_.ThreadOfSlice(row));
        event_records_.push_back({{process, *correlation}, row});
      }
      continue;
    }
    if (!skipped(row)) continue;
    const std::optional<int64_t> stream = model_.args.Int(args, stream_key);
    const std::optional<int64_t> record = model_.args.Int(args, record_key);
    if (!stream || !record || *stream < 0 || *record < 0) continue;  // no event record found
    event_waits_.push_back({row, model_.ThreadOfSlice(row), s.ts[row],
                            SyncKindOf(model_, args, kind_key), *stream, *record});
  }
  std::sort(event_waits_.begin(), event_waits_.end(), [](const EventWait& a, const EventWait& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.ts < b.ts;
  });
  std::sort(event_records_.begin(), event_records_.end());
}

std::pair<const uint32_t*, const uint32_t*> RunIndex::FlowsInto(int64_t begin, int64_t end) const {
  const model::SliceTable& s = model_.slices;
  const model::FlowTable& f = model_.flows;
  const auto first = std::partition_point(
      flows_.begin(), flows_.end(), [&](uint32_t row) { return s.ts[f.to_slice[row]] < begin; });
  const auto last = std::partition_point(first, flows_.end(),
                                         [&](uint32_t row) { return s.ts[f.to_slice[row]] < end; });
  return {flows_.data() + (first - flows_.begin()), flows_.data() + (last - flows_.begin())};
}

void RunIndex::FindProcessLinks(const AnalysisSet& set) {
  const model::ProcessTable& p = model_.processes;
  std::vector<uint8_t> has_steps(p.size(), 0);
  for (const StepSpan& step : set.steps.steps) {
    has_steps[model_.ProcessOfThread(step.thread)] = 1;
  }
  for (uint32_t thread : model_.steps.thread) has_steps[model_.ProcessOfThread(thread)] = 1;
  loaders_.assign(p.size(), {});
  for (uint32_t child = 0; child < p.size(); ++child) {
    if (has_steps[child] || p.device_id[child] >= 0) continue;
    const int64_t ppid = ParentPid(p.metadata[child]);
    if (ppid < 0) continue;
    for (uint32_t parent = 0; parent < p.size(); ++parent) {
      if (parent != child && p.device_id[parent] < 0 && p.pid[parent] == ppid &&
          p.host[parent] == p.host[child]) {
        loaders_[parent].push_back(child);
      }
    }
  }
  devices_.assign(p.size(), {});
  const model::FlowTable& f = model_.flows;
  for (uint32_t row = 0; row < f.size(); ++row) {
    if (f.from_slice[row] >= model_.slices.size() || f.to_slice[row] >= model_.slices.size()) {
      continue;
    }
    const uint32_t from = model_.ProcessOfThread(model_.ThreadOfSlice(f.from_slice[row]));
    const uint32_t to = model_.ProcessOfThread(model_.ThreadOfSlice(f.to_slice[row]));
    if (p.device_id[from] >= 0 || p.device_id[to] < 0) continue;
    std::vector<uint32_t>& devices = devices_[from];
    if (std::find(devices.begin(), devices.end(), to) == devices.end()) devices.push_back(to);
  }
}

void RunIndex::ClassifyThreads(const AnalysisSet& set) {
  const model::ThreadTable& t = model_.threads;
  thread_kind_.assign(t.size(), ChainKind::kHostThread);
  std::vector<uint8_t> runs_steps(t.size(), 0), has_waits(t.size(), 0), has_comm(t.size(), 0);
  for (uint32_t thread : model_.steps.thread) runs_steps[thread] = 1;
  for (const StepSpan& step : set.steps.steps) runs_steps[step.thread] = 1;
  for (uint32_t row = 0; row < model_.slices.size(); ++row) {
    const uint8_t roles = role(row);
    if ((roles & (kRoleInputWait | kRoleComm)) == 0) continue;
    const uint32_t thread = model_.ThreadOfSlice(row);
    has_waits[thread] |= (roles & kRoleInputWait) != 0;
    has_comm[thread] |= (roles & kRoleComm) != 0;
  }
  std::vector<uint8_t> loader_process(model_.processes.size(), 0);
  for (const auto& children : loaders_) {
    for (uint32_t child : children) loader_process[child] = 1;
  }
  for (uint32_t thread = 0; thread < t.size(); ++thread) {
    const uint32_t process = t.process[thread];
    if (model_.processes.device_id[process] >= 0) {
      thread_kind_[thread] = ChainKind::kDeviceStream;
    } else if (runs_steps[thread]) {
      thread_kind_[thread] = ChainKind::kStepThread;
    } else if (loader_process[process] || has_waits[thread]) {
      thread_kind_[thread] = ChainKind::kLoader;
    } else if (has_comm[thread]) {
      thread_kind_[thread] = ChainKind::kCommWorker;
    }
  }
}

void RunIndex::WindowSlices(uint32_t track, int64_t begin, int64_t end,
                            std::vector<uint32_t>* out) const {
  const model::SliceTable& s = model_.slices;
  // Slices open at `begin`: the last slice starting before it and its ancestors that end
  // after it (in a track whose slices nest, every slice open at `begin` is one of them),
  // outermost first.
  const auto [from, to] = track_order_.Positions(track, begin, end);
  const size_t open_at = out->size();
  if (from > 0) {
    for (uint32_t row = track_order_.At(track, from - 1); row != model::kNoRow;
         row = s.parent[row]) {
      if (s.track[row] != track) break;
      if (s.end[row] > begin) out->push_back(row);
    }
    std::reverse(out->begin() + static_cast<std::ptrdiff_t>(open_at), out->end());
  }
  track_order_.Append(track, from, to, out);
}

uint32_t RunIndex::CommTimingOf(uint32_t slice) const {
  auto found = std::lower_bound(comm_of_slice_.begin(), comm_of_slice_.end(),
                                std::pair<uint32_t, uint32_t>{slice, 0});
  return found != comm_of_slice_.end() && found->first == slice ? found->second : model::kNoRow;
}

SyncTarget RunIndex::SyncTargetOf(uint32_t call) const {
  auto found = std::lower_bound(
      sync_targets_.begin(), sync_targets_.end(), call,
      [](const std::pair<uint32_t, SyncTarget>& e, uint32_t c) { return e.first < c; });
  if (found == sync_targets_.end() || found->first != call) return {};
  return found->second;
}

std::pair<const EventWait*, const EventWait*> RunIndex::EventWaitsOn(uint32_t thread, int64_t begin,
                                                                     int64_t end) const {
  const auto before = [](const EventWait& w, std::pair<uint32_t, int64_t> at) {
    return w.thread != at.first ? w.thread < at.first : w.ts < at.second;
  };
  const auto first =
      std::lower_bound(event_waits_.begin(), event_waits_.end(), std::pair{thread, begin}, before);
  const auto last = std::lower_bound(first, event_waits_.end(), std::pair{thread, end}, before);
  return {event_waits_.data() + (first - event_waits_.begin()),
          event_waits_.data() + (last - event_waits_.begin())};
}

const EventWait* RunIndex::EventWaitOf(uint32_t sync_slice) const {
  if (sync_slice >= model_.slices.size()) return nullptr;
  const uint32_t thread = model_.ThreadOfSlice(sync_slice);
  auto [first, last] = EventWaitsOn(thread, model_.slices.ts[sync_slice], INT64_MAX);
  for (; first != last && first->ts == model_.slices.ts[sync_slice]; ++first) {
    if (first->sync_slice == sync_slice) return first;
  }
  return nullptr;
}

uint32_t RunIndex::EventRecordCall(uint32_t process, int64_t correlation) const {
  const std::pair<uint32_t, int64_t> key{process, correlation};
  auto found = std::lower_bound(
      event_records_.begin(), event_records_.end(), key,
      [](const auto& e, const std::pair<uint32_t, int64_t>& k) { return e.first < k; });
  return found != event_records_.end() && found->first == key ? found->second : model::kNoRow;
}

}  // namespace aiprof::analysis
