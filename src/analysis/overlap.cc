#include "analysis/overlap.h"

#include <algorithm>

#include "analysis/compute_kinds.h"
#include "analysis/input_wait.h"
#include "analysis/op_statistics.h"
#include "analysis/run_sort.h"
#include "analysis/steps.h"
#include "model/huge_pages.h"

namespace aiprof::analysis {

std::string_view ComputeInputName(ComputeInput input) {
  switch (input) {
    case ComputeInput::kDeviceTasks:
      return "device kernels/memcpy/memset";
    case ComputeInput::kFrameworkOps:
      return "framework operators (cpu_op)";
    case ComputeInput::kMarkerRanges:
      return "marker ranges (mstx/NVTX)";
    case ComputeInput::kNone:
      break;
  }
  return "none";
}

std::string_view OverlapLaneName(OverlapLane lane) {
  switch (lane) {
    case OverlapLane::kComputing:
      return "Computing";
    case OverlapLane::kCommunication:
      return "Communication";
    case OverlapLane::kCommunicationNotOverlapped:
      return "Communication(Not Overlapped)";
    case OverlapLane::kFree:
      return "Free";
  }
  return "";
}

bool LaneCursor::NextNotOverlapped(Interval* interval) {
  const std::vector<Interval>& compute = scope_.computing;
  const std::vector<Interval>& comm = scope_.communication;
  while (index_ < comm.size()) {
    const Interval& c = comm[index_];
    if (!inside_) {
      // `first_` only moves forward: a computing interval that reaches past a
      // communication interval is looked at again for the next one.
      while (first_ < compute.size() && compute[first_].end <= c.begin) ++first_;
      k_ = first_;
      at_ = c.begin;
      inside_ = true;
    }
    while (at_ < c.end) {
      if (k_ == compute.size() || compute[k_].begin >= c.end) {
        *interval = Interval{at_, c.end};
        at_ = c.end;
        return true;
      }
      Interval gap{at_, compute[k_].begin};
      at_ = compute[k_++].end;
      if (gap.begin < gap.end) {
        *interval = gap;
        return true;
      }
    }
    inside_ = false;
    ++index_;
  }
  return false;
}

bool LaneCursor::NextFree(Interval* interval) {
  const std::vector<Interval>& compute = scope_.computing;
  const std::vector<Interval>& comm = scope_.communication;
  // The gaps of Computing ∪ Communication, walking both lists in begin order.
  while (a_ < compute.size() || b_ < comm.size()) {
    bool take_compute =
        b_ == comm.size() || (a_ < compute.size() && compute[a_].begin <= comm[b_].begin);
    const Interval& next = take_compute ? compute[a_++] : comm[b_++];
    Interval gap{covered_, next.begin};
    if (next.end > covered_) covered_ = next.end;
    if (gap.begin < gap.end) {
      *interval = gap;
      return true;
    }
  }
  return false;
}

bool LaneCursor::Next(OverlapLane* lane, Interval* interval) {
  switch (lane_) {
    case OverlapLane::kComputing:
      if (index_ < scope_.computing.size()) {
        *lane = lane_;
        *interval = scope_.computing[index_++];
        return true;
      }
      lane_ = OverlapLane::kCommunication;
      index_ = 0;
      [[fallthrough]];
    case OverlapLane::kCommunication:
      if (index_ < scope_.communication.size()) {
        *lane = lane_;
        *interval = scope_.communication[index_++];
        return true;
      }
      lane_ = OverlapLane::kCommunicationNotOverlapped;
      index_ = 0;
      [[fallthrough]];
    case OverlapLane::kCommunicationNotOverlapped:
      if (NextNotOverlapped(interval)) {
        *lane = lane_;
        return true;
      }
      lane_ = OverlapLane::kFree;
      [[fallthrough]];
    case OverlapLane::kFree:
      if (NextFree(interval)) {
        *lane = lane_;
        return true;
      }
      return false;
  }
  return false;
}

namespace {

// Markers of a process used as compute only when the process has no framework operators.
// A slice inside a parent of its own kind adds nothing to the union (slices of a track nest,
// model/nesting.h), so it counts as a task but is not kept. The kept slices are noted as the
// table's sorted runs (run_sort.h), not as rows: the union is merged from them.
struct ScopeBuilder {
  OverlapScope scope;
  uint64_t marker_count = 0;
  TableRuns compute;
  TableRuns markers;
};

// The union of the slices noted in `slices` (those `kept(row)` accepts in its ranges): merged
// from the runs straight into the union, or, for many short runs, from their rows sorted.
template <typename Kept>
std::vector<Interval> UnionOfRuns(const TableRuns& slices, Kept kept, const model::SliceTable& s) {
  const auto interval_of = [&s](uint32_t row) { return Interval{s.ts[row], s.end[row]}; };
  if (slices.ShortRuns()) {
    std::vector<uint32_t> rows = RowsOfRuns(slices, kept);
    return UnionOf(rows, interval_of);
  }
  MergedListBuilder merged;
  MergeRuns(
      slices, kept, [&s](uint32_t row) { return s.ts[row]; },
      [&](uint32_t row) { merged.Append(interval_of(row)); });
  return merged.Take();
}

// Per slice: whether it lies inside a range that waits for input (input_wait.h), found up
// the parent chain once per slice (a slice's answer is its parent's, memoised); 2 bits a slice.
constexpr uint8_t kWaitUnknown = 0, kOutsideWait = 1, kInsideWait = 2;
PackedCodes InsideInputWait(const model::Model& model) {
  const model::SliceTable& s = model.slices;
  std::vector<int8_t> is_wait_name(model.strings.size(), -1);
  PackedCodes inside(s.size());
  std::vector<uint32_t> chain;
  for (uint32_t row = 0; row < s.size(); ++row) {
    uint32_t at = row;
    chain.clear();
    while (at != model::kNoRow && inside.Get(at) == kWaitUnknown) {
      chain.push_back(at);
      at = s.parent[at];
    }
    bool answer = at != model::kNoRow && inside.Get(at) == kInsideWait;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      int8_t& wait = is_wait_name[s.name[*it]];
      if (wait < 0) wait = IsInputWaitName(model.Str(s.name[*it]));
      answer = answer || wait;
      inside.Set(*it, answer ? kInsideWait : kOutsideWait);
    }
  }
  return inside;
}

// The classification (overlap.h) into `kinds`, one per slice, all kComputeOther on entry
// (Get(row), Set(row, kind)): bytes for the overlap, 2 bits for the critical path's run index,
// computed by this one code. Returns whether the run has device tasks.
template <typename Kinds>
bool ClassifyInto(const model::Model& model, const std::vector<model::CommOp>& comm, Kinds& kinds) {
  const model::SliceTable& s = model.slices;
  std::vector<uint8_t> category_kind(model.strings.size(), kComputeOther);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (IsDeviceTaskCategory(text)) category_kind[id] = kComputeDeviceTask;
    if (text == "cpu_op") category_kind[id] = kComputeFrameworkOp;
  }
  // Not compute: the steps (the step model's ranges, whether or not --iteration-id selected
  // them), ranges that wait for input and everything inside them (loading a batch on the
  // step's thread is data preparation), and the profiler's own operators
  // ("profiler::_record_function_enter_new" opens every record_function). Decided once per
  // name, then per slice along the parent chain.
  std::vector<int8_t> name_excluded(model.strings.size(), -1);
  const auto excluded_name = [&](model::StringId id) {
    int8_t& excluded = name_excluded[id];
    if (excluded < 0) {
      const std::string_view name = model.Str(id);
      excluded = IsInputWaitName(name) || name.starts_with("profiler::");
    }
    return excluded != 0;
  };
  const PackedCodes inside_wait = InsideInputWait(model);
  // Per slice: what it counts as. Communication and step slices are never compute.
  bool device_run = false;
  for (uint32_t row = 0; row < s.size(); ++row) {
    uint8_t kind = category_kind[s.category[row]];
    device_run |= kind == kComputeDeviceTask;
    if (kind == kComputeFrameworkOp &&
        (excluded_name(s.name[row]) || inside_wait.Get(row) == kInsideWait))
      kind = kComputeOther;
    if (kind != kComputeOther) kinds.Set(row, kind);
  }
  for (size_t i = 0; i < model.markers.size(); ++i) {
    uint32_t row = model.markers.row[i];
    // A marker on a slice of another kind (a framework operator) stays that kind.
    if (!model.markers.is_instant[i] && category_kind[s.category[row]] == kComputeOther &&
        !excluded_name(s.name[row]) && inside_wait.Get(row) != kInsideWait) {
      kinds.Set(row, kComputeMarkerRange);
    }
  }
  for (uint32_t row : model.steps.slice) {
    if (row != model::kNoRow) kinds.Set(row, kComputeOther);
  }
  for (const model::CommOp& op : comm) kinds.Set(op.slice, kComputeOther);
  return device_run;
}

// ClassifyInto's view of a byte per slice.
struct ByteKinds {
  std::vector<uint8_t>& kind;
  void Set(size_t row, uint8_t value) { kind[row] = value; }
};

}  // namespace

ComputeClassification ClassifyComputeSlices(const model::Model& model,
                                            const std::vector<model::CommOp>& comm) {
  ComputeClassification result;
  model::AssignOnHugePages(result.kind, model.slices.size(), uint8_t{kComputeOther});
  ByteKinds kinds{result.kind};
  result.device_run = ClassifyInto(model, comm, kinds);
  return result;
}

PackedComputeClassification ClassifyComputeSlicesPacked(const model::Model& model,
                                                        const std::vector<model::CommOp>& comm) {
  PackedComputeClassification result;
  result.kind = PackedCodes(model.slices.size());
  result.device_run = ClassifyInto(model, comm, result.kind);
  return result;
}

namespace {

// The scopes with something in them: lanes merged, compute input named, time span set.
// `kept(row, process, markers)`: whether the slice is one of the process's compute tasks (or
// marker ranges) that its union reads.
template <typename Kept>
OverlapResult FinishScopes(std::vector<ScopeBuilder>& builders, bool device_run, Kept kept,
                           const model::SliceTable& s, const model::ProcessTable& processes) {
  OverlapResult result;
  result.device_run = device_run;
  for (uint32_t process = 0; process < builders.size(); ++process) {
    ScopeBuilder& b = builders[process];
    OverlapScope& scope = b.scope;
    bool use_markers = false;
    if (scope.compute_tasks > 0) {
      scope.compute_input = device_run ? ComputeInput::kDeviceTasks : ComputeInput::kFrameworkOps;
    } else if (b.marker_count > 0) {
      scope.compute_input = ComputeInput::kMarkerRanges;
      scope.compute_tasks = b.marker_count;
      use_markers = true;
    }
    scope.computing = UnionOfRuns(
        use_markers ? b.markers : b.compute,
        [&](uint32_t row) { return kept(row, process, use_markers); }, s);
    b.compute = {};
    b.markers = {};
    MergeInPlace(scope.communication);
    std::sort(scope.receive.begin(), scope.receive.end(),
              [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
    if (scope.empty()) continue;
    scope.process = process;
    scope.device_id = processes.device_id[process];
    scope.rank = processes.rank[process];
    scope.first_ns = INT64_MAX;
    scope.last_ns = INT64_MIN;
    for (const std::vector<Interval>* lane : {&scope.computing, &scope.communication}) {
      if (lane->empty()) continue;
      scope.first_ns = std::min(scope.first_ns, lane->front().begin);
      scope.last_ns = std::max(scope.last_ns, lane->back().end);
    }
    result.scopes.push_back(std::move(scope));
  }
  return result;
}

}  // namespace

OverlapResult ComputeOverlap(const model::Model& model, const std::vector<model::CommOp>& comm) {
  const model::SliceTable& s = model.slices;
  const ComputeClassification classified = ClassifyComputeSlices(model, comm);
  const std::vector<uint8_t>& slice_kind = classified.kind;
  const bool device_run = classified.device_run;

  const model::ProcessTable& processes = model.processes;
  auto in_scope = [&](uint32_t process) {
    return device_run == (processes.device_id[process] >= 0);
  };
  std::vector<uint32_t> track_process(model.tracks.size());
  for (uint32_t t = 0; t < model.tracks.size(); ++t) {
    track_process[t] = model.ProcessOfThread(model.tracks.thread[t]);
  }
  // What a slice is for its process's union: not in it (kComputeOther), a compute task or a
  // marker range (kComputeMarkerRange), and whether it is kept (not inside a parent of its kind).
  const auto role_of = [&](uint32_t row, bool* covered) {
    const uint8_t kind = slice_kind[row];
    if (kind == kComputeOther || !in_scope(track_process[s.track[row]])) return kComputeOther;
    if (kind != kComputeMarkerRange && device_run != (kind == kComputeDeviceTask)) {
      return kComputeOther;
    }
    const uint32_t parent = s.parent[row];
    *covered = parent != model::kNoRow && slice_kind[parent] == kind;
    return static_cast<ComputeSliceKind>(kind);
  };
  std::vector<ScopeBuilder> builders(processes.size());
  for (uint32_t row = 0; row < s.size(); ++row) {
    bool covered = false;
    const ComputeSliceKind role = role_of(row, &covered);
    if (role == kComputeOther) continue;
    ScopeBuilder& b = builders[track_process[s.track[row]]];
    if (role == kComputeMarkerRange) {
      ++b.marker_count;
      if (!covered) b.markers.Add(row, s.ts[row]);
    } else {
      ++b.scope.compute_tasks;
      if (!covered) b.compute.Add(row, s.ts[row]);
    }
  }
  for (const model::CommOp& op : comm) {
    if (op.process == model::kNoRow || !in_scope(op.process)) continue;
    OverlapScope& scope = builders[op.process].scope;
    Interval interval{s.ts[op.slice], s.end[op.slice]};
    scope.communication.push_back(interval);
    ++scope.communication_ops;
    if (op.type == model::CommOpType::kRecv) scope.receive.push_back(interval);
  }

  const auto kept = [&](uint32_t row, uint32_t process, bool markers) {
    bool covered = false;
    const ComputeSliceKind role = role_of(row, &covered);
    return role != kComputeOther && !covered && (role == kComputeMarkerRange) == markers &&
           track_process[s.track[row]] == process;
  };
  return FinishScopes(builders, device_run, kept, s, processes);
}

}  // namespace aiprof::analysis
