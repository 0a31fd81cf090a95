#include "server/ui_api.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analysis/op_statistics.h"
#include "model/zero_pages.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

constexpr size_t kFlowLimit = 5000;
constexpr size_t kStreamPiece = 64 * 1024;  // bytes gathered before a piece is sent

// Names referred to by index in one answer, listed once at its end.
class NameList {
 public:
  explicit NameList(const model::Model& m) : model_(m) {}
  size_t Of(model::StringId id) {
    auto [it, inserted] = index_.emplace(id, ids_.size());
    if (inserted) ids_.push_back(id);
    return it->second;
  }
  void Append(std::string& out) const {
    out += '[';
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonString(out, model_.Str(ids_[i]));
    }
    out += ']';
  }

 private:
  const model::Model& model_;
  std::unordered_map<model::StringId, size_t> index_;
  std::vector<model::StringId> ids_;
};

// The model as the server holds it: only read from here on, so the pages of its columns that
// hold only zeros go back to the kernel (model/zero_pages.h) before the index is built.
model::Model Served(model::Model model) {
  model::ReleaseZeroPages(model);
  return model;
}

std::vector<std::string> RoleLabels(const model::Model& m,
                                    const std::vector<model::ProcessRoleInfo>& roles) {
  std::vector<std::string> labels;
  labels.reserve(m.processes.size());
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    labels.push_back(model::ProcessRoleLabel(m, roles, p));
  }
  return labels;
}

template <typename T>
size_t Bytes(const std::vector<T>& column) {
  return column.capacity() * sizeof(T);
}

}  // namespace

size_t ApproximateModelBytes(const model::Model& m) {
  size_t bytes = Bytes(m.slices.ts) + Bytes(m.slices.end) + Bytes(m.slices.track) +
                 Bytes(m.slices.name) + Bytes(m.slices.category) + Bytes(m.slices.args) +
                 Bytes(m.slices.depth) + Bytes(m.slices.parent) + Bytes(m.slices.flags);
  bytes += Bytes(m.args.key) + Bytes(m.args.type) + Bytes(m.args.value) + Bytes(m.args.set_begin);
  bytes += Bytes(m.instants.ts) + Bytes(m.instants.track) + Bytes(m.instants.name) +
           Bytes(m.instants.category) + Bytes(m.instants.args);
  bytes += Bytes(m.counters.series) + Bytes(m.counters.ts) + Bytes(m.counters.value);
  bytes += Bytes(m.flows.id) + Bytes(m.flows.from_slice) + Bytes(m.flows.to_slice) +
           Bytes(m.flows.category);
  bytes += Bytes(m.markers.is_instant) + Bytes(m.markers.row) + Bytes(m.markers.event_type) +
           Bytes(m.markers.domain) + Bytes(m.markers.detail);
  constexpr size_t kPoolEntry = sizeof(std::string) + sizeof(std::string_view) + 32;
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    bytes += m.strings.Get(id).size() + kPoolEntry;
  }
  return bytes;
}

void UiApi::CheckTracks(const std::vector<uint32_t>& tracks) const {
  for (uint32_t track : tracks) {
    if (track >= model_.tracks.size()) {
      throw ApiError(404, "no track " + std::to_string(track) + " (this run has " +
                              std::to_string(model_.tracks.size()) + ")");
    }
  }
}

UiApi::UiApi(model::Model model, std::vector<std::string> prof_dirs)
    : model_(Served(std::move(model))),
      prof_dirs_(std::move(prof_dirs)),
      index_(model_),
      extent_(analysis::ComputeRunExtent(model_)),
      origin_ns_(extent_.begin_ns),
      end_ns_(extent_.end_ns),
      roles_(model::ProcessRoles(model_)),
      role_labels_(RoleLabels(model_, roles_)),
      analysis_(model_, origin_ns_, role_labels_),
      communication_(analysis_, origin_ns_),
      critical_path_(model_, analysis_, origin_ns_),
      cpu_profile_(model_),
      advice_(model_, analysis_, prof_dirs_),
      comparison_(model_, analysis_, prof_dirs_),
      query_(model_, analysis_, origin_ns_) {
  // Both are small and cheap (no walk over the slices): built before the server answers, so
  // the first page never waits for them.
  run_json_ = BuildRun();
  tracks_json_ = BuildTracks();
}

std::string UiApi::BuildRun() const {
  const model::Model& m = model_;
  std::string out = "{\"origin_ns\":";
  AppendJsonNumber(out, origin_ns_);
  out += ",\"end\":";
  AppendJsonNumber(out, end_ns_ - origin_ns_);
  out += ",\"prof_dirs\":[";
  for (size_t i = 0; i < prof_dirs_.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, prof_dirs_[i]);
  }
  out += "],\"processes\":[";
  for (size_t p = 0; p < m.processes.size(); ++p) {
    if (p > 0) out += ',';
    out += "{\"pid\":" + std::to_string(m.processes.pid[p]) + ",\"host\":";
    AppendJsonString(out, m.Str(m.processes.host[p]));
    out += ",\"name\":";
    AppendJsonString(out, m.Str(m.processes.name[p]));
    out += ",\"label\":";
    AppendJsonString(out, m.Str(m.processes.label[p]));
    out += ",\"device\":" + std::to_string(m.processes.device_id[p]) +
           ",\"rank\":" + std::to_string(m.processes.rank[p]) + ",\"role\":";
    AppendJsonString(out, model::ProcessRoleName(roles_[p].role));
    out += ",\"role_label\":";
    AppendJsonString(out, role_labels_[p]);
    out += ",\"ppid\":" + std::to_string(roles_[p].ppid) + ",\"metadata\":";
    const nlohmann::json metadata = nlohmann::json::parse(m.processes.metadata[p], nullptr, false);
    out += metadata.is_discarded()
               ? "null"
               : metadata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '}';
  }
  out += "],\"counts\":{\"threads\":" + std::to_string(m.threads.size()) +
         ",\"slices\":" + std::to_string(m.slices.size()) +
         ",\"instants\":" + std::to_string(m.instants.size()) +
         ",\"counter_samples\":" + std::to_string(m.counters.size()) +
         ",\"flows\":" + std::to_string(m.flows.size()) +
         ",\"records\":" + std::to_string(m.records) +
         ",\"raw_bytes\":" + std::to_string(m.raw_bytes) +
         ",\"unknown_records\":" + std::to_string(m.unknown_records) +
         ",\"unmatched_ends\":" + std::to_string(m.unmatched_ends) +
         ",\"model_bytes\":" + std::to_string(ApproximateModelBytes(m)) +
         ",\"index_bytes\":" + std::to_string(index_.MemoryBytes()) + "}";
  out += ",\"drops\":{\"total\":" + std::to_string(m.drops.total()) + ",\"rows\":[";
  for (size_t i = 0; i < m.drops.size(); ++i) {
    if (i > 0) out += ',';
    const uint32_t thread = m.drops.thread[i];
    out += "{\"tid\":" + std::to_string(thread < m.threads.size() ? m.threads.tid[thread] : 0) +
           ",\"kind\":" + std::to_string(m.drops.kind[i]) +
           ",\"count\":" + std::to_string(m.drops.count[i]) + "}";
  }
  out += "]},\"files\":[";
  for (size_t i = 0; i < m.files.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"path\":";
    AppendJsonString(out, m.files[i].path);
    out += ",\"error\":";
    AppendJsonString(out, m.files[i].error);
    out += '}';
  }
  // Steps (model/steps.h) as [id, begin, end, label, track]: the id is what ?step= takes;
  // the track (the first of the thread that ran the step) is where the timeline scrolls to.
  std::vector<uint32_t> first_track(m.threads.size(), model::kNoRow);
  for (uint32_t k = 0; k < m.tracks.size(); ++k) {
    uint32_t& track = first_track[m.tracks.thread[k]];
    if (track == model::kNoRow || m.tracks.lane[k] == 0) track = k;
  }
  out += "],\"steps\":[";
  for (uint32_t i = 0; i < m.steps.size(); ++i) {
    if (i > 0) out += ',';
    out += '[' + std::to_string(i) + ',' + std::to_string(m.steps.ts[i] - origin_ns_) + ',' +
           std::to_string(m.steps.end[i] - origin_ns_) + ',';
    AppendJsonString(out, model::StepLabel(m, i));
    const uint32_t track = first_track[m.steps.thread[i]];
    out += ',' + (track == model::kNoRow ? std::string("-1") : std::to_string(track)) + ']';
  }
  out += "],\"step_source\":";
  AppendJsonString(out, model::StepSourceName(model::RunStepSource(m)));
  out += ",\"step_loops\":" + std::to_string(m.step_loops.size());
  out += "}";
  return out;
}

std::string UiApi::BuildTracks() const {
  const model::Model& m = model_;
  std::vector<uint32_t> processes(m.processes.size());
  for (uint32_t i = 0; i < processes.size(); ++i) processes[i] = i;
  std::stable_sort(processes.begin(), processes.end(), [&](uint32_t a, uint32_t b) {
    return std::pair(m.processes.sort_index[a], m.processes.pid[a]) <
           std::pair(m.processes.sort_index[b], m.processes.pid[b]);
  });
  std::vector<std::vector<uint32_t>> threads_of(m.processes.size());
  for (uint32_t t = 0; t < m.threads.size(); ++t) threads_of[m.threads.process[t]].push_back(t);
  std::vector<std::vector<uint32_t>> tracks_of(m.threads.size());
  for (uint32_t k = 0; k < m.tracks.size(); ++k) tracks_of[m.tracks.thread[k]].push_back(k);
  std::vector<std::vector<uint32_t>> series_of(m.processes.size());
  for (uint32_t c = 0; c < m.counter_series.size(); ++c) {
    series_of[m.counter_series.process[c]].push_back(c);
  }
  std::string out = "{\"processes\":[";
  bool first_process = true;
  for (uint32_t p : processes) {
    if (!first_process) out += ',';
    first_process = false;
    out += "{\"id\":" + std::to_string(p) + ",\"pid\":" + std::to_string(m.processes.pid[p]) +
           ",\"device\":" + std::to_string(m.processes.device_id[p]) +
           ",\"rank\":" + std::to_string(m.processes.rank[p]) + ",\"name\":";
    AppendJsonString(out, m.Str(m.processes.name[p]));
    out += ",\"label\":";
    AppendJsonString(out, m.Str(m.processes.label[p]));
    out += ",\"role\":";
    AppendJsonString(out, model::ProcessRoleName(roles_[p].role));
    out += ",\"role_label\":";
    AppendJsonString(out, role_labels_[p]);
    out += ",\"threads\":[";
    std::vector<uint32_t>& threads = threads_of[p];
    std::stable_sort(threads.begin(), threads.end(), [&](uint32_t a, uint32_t b) {
      return std::pair(m.threads.sort_index[a], m.threads.tid[a]) <
             std::pair(m.threads.sort_index[b], m.threads.tid[b]);
    });
    for (size_t i = 0; i < threads.size(); ++i) {
      const uint32_t t = threads[i];
      if (i > 0) out += ',';
      out += "{\"id\":" + std::to_string(t) + ",\"tid\":" + std::to_string(m.threads.tid[t]) +
             ",\"name\":";
      AppendJsonString(out, m.Str(m.threads.name[t]));
      out += ",\"tracks\":[";
      for (size_t k = 0; k < tracks_of[t].size(); ++k) {
        const uint32_t track = tracks_of[t][k];
        if (k > 0) out += ',';
        out += "{\"id\":" + std::to_string(track) +
               ",\"lane\":" + std::to_string(m.tracks.lane[track]) +
               ",\"rows\":" + std::to_string(index_.RowsOfTrack(track)) +
               ",\"instants\":" + std::to_string(index_.InstantsOfTrack(track)) + "}";
      }
      out += "]}";
    }
    out += "],\"counters\":[";
    for (size_t i = 0; i < series_of[p].size(); ++i) {
      const uint32_t c = series_of[p][i];
      if (i > 0) out += ',';
      out += "{\"id\":" + std::to_string(c) + ",\"name\":";
      AppendJsonString(out, m.Str(m.counter_series.name[c]));
      out += ",\"unit\":";
      AppendJsonString(out, m.Str(m.counter_series.unit[c]));
      out += ",\"scope\":" + std::to_string(m.counter_series.scope[c]) +
             ",\"instance\":" + std::to_string(m.counter_series.instance[c]) + "}";
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

void UiApi::Slices(const TimeWindow& window, const std::vector<uint32_t>& tracks,
                   const JsonSink& out) const {
  CheckTracks(tracks);
  const int64_t t0 = window.t0 + origin_ns_;
  const int64_t t1 = window.t1 + origin_ns_;
  const int64_t ns_per_px = std::max<int64_t>((window.t1 - window.t0) / window.pixels, 1);
  NameList names(model_);
  std::string piece = "{\"tracks\":[";
  bool alive = true;
  for (size_t i = 0; i < tracks.size() && alive; ++i) {
    if (i > 0) piece += ',';
    piece += "{\"id\":" + std::to_string(tracks[i]) + ",\"spans\":[";
    bool first = true;
    index_.QuerySlices(tracks[i], t0, t1, ns_per_px, [&](uint16_t depth, const SliceSpan& span) {
      if (!first) piece += ',';
      first = false;
      piece += '[' + std::to_string(depth) + ',' + std::to_string(span.ts - origin_ns_) + ',' +
               std::to_string(span.end - span.ts) + ',' + std::to_string(span.count) + ',' +
               std::to_string(span.slice) + ',' +
               std::to_string(names.Of(model_.slices.name[span.slice])) + ']';
    });
    piece += "],\"instants\":[";
    const std::vector<uint32_t> instants = index_.InstantsIn(tracks[i], t0, t1, ns_per_px);
    for (size_t k = 0; k < instants.size(); ++k) {
      if (k > 0) piece += ',';
      piece += '[' + std::to_string(model_.instants.ts[instants[k]] - origin_ns_) + ',' +
               std::to_string(instants[k]) + ',' +
               std::to_string(names.Of(model_.instants.name[instants[k]])) + ']';
    }
    piece += "]}";
    if (piece.size() >= kStreamPiece) {
      alive = out(piece);
      piece.clear();
    }
  }
  piece += "],\"names\":";
  names.Append(piece);
  piece += '}';
  if (alive) out(piece);
}

std::string UiApi::Counters(const TimeWindow& window, const std::vector<uint32_t>& series) const {
  const int64_t ns_per_px = std::max<int64_t>((window.t1 - window.t0) / window.pixels, 1);
  std::string out = "{\"series\":[";
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i] >= model_.counter_series.size()) {
      throw ApiError(404, "no counter series " + std::to_string(series[i]));
    }
    if (i > 0) out += ',';
    out += "{\"id\":" + std::to_string(series[i]) + ",\"points\":[";
    const std::vector<CounterPoint> points =
        index_.QueryCounter(series[i], window.t0 + origin_ns_, window.t1 + origin_ns_, ns_per_px);
    for (size_t k = 0; k < points.size(); ++k) {
      if (k > 0) out += ',';
      out += '[' + std::to_string(points[k].ts - origin_ns_) + ',';
      AppendJsonNumber(out, points[k].min);
      out += ',';
      AppendJsonNumber(out, points[k].max);
      out += ']';
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

std::string UiApi::Flows(const TimeWindow& window) const {
  const model::Model& m = model_;
  const std::vector<uint32_t> flows =
      index_.FlowsIn(window.t0 + origin_ns_, window.t1 + origin_ns_, kFlowLimit);
  std::string out = "{\"truncated\":";
  out += flows.size() >= kFlowLimit ? "true" : "false";
  out += ",\"flows\":[";
  for (size_t i = 0; i < flows.size(); ++i) {
    const uint32_t from = m.flows.from_slice[flows[i]];
    const uint32_t to = m.flows.to_slice[flows[i]];
    if (i > 0) out += ',';
    out += '[' + std::to_string(m.slices.track[from]) + ',' + std::to_string(m.slices.depth[from]) +
           ',' + std::to_string(m.slices.ts[from] - origin_ns_) + ',' +
           std::to_string(m.slices.track[to]) + ',' + std::to_string(m.slices.depth[to]) + ',' +
           std::to_string(m.slices.ts[to] - origin_ns_) + ',';
    AppendJsonString(out, m.Str(m.flows.category[flows[i]]));
    out += ',' + std::to_string(from) + ',' + std::to_string(to) + ']';
  }
  out += "]}";
  return out;
}

}  // namespace aiprof::server
