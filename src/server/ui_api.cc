#include "server/ui_api.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analysis/op_statistics.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

constexpr size_t kFlowLimit = 5000;
constexpr size_t kRangeStatisticsRows = 200;
constexpr size_t kStreamPiece = 64 * 1024;  // bytes gathered before a piece is sent

// The data's extent: the first and last event (slices, instants, counters), falling back to
// the collection window when there are none. The window's start can be far from the data
// (a window opened long before the first record), which would squeeze it into a sliver.
int64_t RunOrigin(const model::Model& m) {
  int64_t origin = INT64_MAX;
  for (int64_t t : m.slices.ts) origin = std::min(origin, t);
  for (int64_t t : m.instants.ts) origin = std::min(origin, t);
  for (int64_t t : m.counters.ts) origin = std::min(origin, t);
  return origin == INT64_MAX ? m.start_ns : origin;
}

int64_t RunEnd(const model::Model& m) {
  int64_t end = INT64_MIN;
  for (int64_t e : m.slices.end) end = std::max(end, e);
  for (int64_t t : m.instants.ts) end = std::max(end, t);
  for (int64_t t : m.counters.ts) end = std::max(end, t);
  return end == INT64_MIN ? m.end_ns : end;
}

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

void AppendArgs(const model::Model& m, uint32_t set, std::string& out) {
  out += '{';
  if (set != 0 && set + 1 < m.args.set_begin.size()) {
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      if (i > m.args.set_begin[set]) out += ',';
      AppendJsonString(out, m.Str(m.args.key[i]));
      out += ':';
      const uint64_t value = m.args.value[i];
      switch (m.args.type[i]) {
        case model::ArgType::kInt:
          AppendJsonNumber(out, static_cast<int64_t>(value));
          break;
        case model::ArgType::kUInt:
          AppendJsonNumber(out, value);
          break;
        case model::ArgType::kDouble:
          AppendJsonNumber(out, std::bit_cast<double>(value));
          break;
        case model::ArgType::kString:
        case model::ArgType::kJson:
          AppendJsonString(out, m.Str(static_cast<model::StringId>(value)));
          break;
      }
    }
  }
  out += '}';
}

template <typename T>
size_t Bytes(const std::vector<T>& column) {
  return column.capacity() * sizeof(T);
}

// The model's heap size, column by column (strings at their text plus a pool entry each):
// the reference for the server's memory target (at most 1.5x the model).
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

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

void CheckTracks(const model::Model& m, const std::vector<uint32_t>& tracks) {
  for (uint32_t track : tracks) {
    if (track >= m.tracks.size()) {
      throw ApiError(404, "no track " + std::to_string(track) + " (this run has " +
                              std::to_string(m.tracks.size()) + ")");
    }
  }
}

}  // namespace

UiApi::UiApi(model::Model model, std::vector<std::string> prof_dirs)
    : model_(std::move(model)),
      prof_dirs_(std::move(prof_dirs)),
      index_(model_),
      origin_ns_(RunOrigin(model_)),
      end_ns_(RunEnd(model_)),
      analysis_(model_, origin_ns_),
      communication_(analysis_, origin_ns_),
      cpu_profile_(model_),
      advice_(model_, analysis_, prof_dirs_),
      comparison_(model_, analysis_, prof_dirs_) {
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
           ",\"rank\":" + std::to_string(m.processes.rank[p]) + ",\"metadata\":";
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
  // Steps (model/steps.h) as [id, begin, end, label]: the id is what ?step= takes.
  out += "],\"steps\":[";
  for (uint32_t i = 0; i < m.steps.size(); ++i) {
    if (i > 0) out += ',';
    out += '[' + std::to_string(i) + ',' + std::to_string(m.steps.ts[i] - origin_ns_) + ',' +
           std::to_string(m.steps.end[i] - origin_ns_) + ',';
    AppendJsonString(out, model::StepLabel(m, i));
    out += ']';
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
           ",\"device\":" + std::to_string(m.processes.device_id[p]) + ",\"name\":";
    AppendJsonString(out, m.Str(m.processes.name[p]));
    out += ",\"label\":";
    AppendJsonString(out, m.Str(m.processes.label[p]));
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
               ",\"rows\":" + std::to_string(index_.RowsOfTrack(track)) + "}";
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
  CheckTracks(model_, tracks);
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
    out += ']';
  }
  out += "]}";
  return out;
}

std::string UiApi::SliceDetails(uint32_t slice) const {
  const model::Model& m = model_;
  if (slice >= m.slices.size()) throw ApiError(404, "no slice " + std::to_string(slice));
  const uint32_t thread = m.ThreadOfSlice(slice);
  const uint32_t process = m.ProcessOfThread(thread);
  std::string out = "{\"id\":" + std::to_string(slice) + ",\"name\":";
  AppendJsonString(out, m.Str(m.slices.name[slice]));
  out += ",\"category\":";
  AppendJsonString(out, m.Str(m.slices.category[slice]));
  out += ",\"ts\":" + std::to_string(m.slices.ts[slice] - origin_ns_) +
         ",\"dur\":" + std::to_string(m.slices.dur(slice)) +
         ",\"track\":" + std::to_string(m.slices.track[slice]) +
         ",\"depth\":" + std::to_string(m.slices.depth[slice]) +
         ",\"tid\":" + std::to_string(m.threads.tid[thread]) + ",\"thread\":";
  AppendJsonString(out, m.Str(m.threads.name[thread]));
  out += ",\"pid\":" + std::to_string(m.processes.pid[process]) + ",\"process\":";
  AppendJsonString(out, m.Str(m.processes.name[process]));
  out += ",\"unclosed\":";
  out += (m.slices.flags[slice] & model::kSliceUnclosed) ? "true" : "false";
  const uint32_t parent = m.slices.parent[slice];
  if (parent != model::kNoRow) {
    out += ",\"parent\":{\"id\":" + std::to_string(parent) + ",\"name\":";
    AppendJsonString(out, m.Str(m.slices.name[parent]));
    out += '}';
  }
  out += ",\"args\":";
  AppendArgs(m, m.slices.args[slice], out);
  out += ",\"flows\":[";
  bool first = true;
  for (size_t f = 0; f < m.flows.size(); ++f) {
    const bool outgoing = m.flows.from_slice[f] == slice;
    if (!outgoing && m.flows.to_slice[f] != slice) continue;
    const uint32_t other = outgoing ? m.flows.to_slice[f] : m.flows.from_slice[f];
    if (!first) out += ',';
    first = false;
    out += "{\"direction\":";
    out += outgoing ? "\"out\"" : "\"in\"";
    out += ",\"category\":";
    AppendJsonString(out, m.Str(m.flows.category[f]));
    out += ",\"slice\":" + std::to_string(other) + ",\"name\":";
    AppendJsonString(out, m.Str(m.slices.name[other]));
    out += ",\"ts\":" + std::to_string(m.slices.ts[other] - origin_ns_) +
           ",\"track\":" + std::to_string(m.slices.track[other]) + "}";
  }
  out += "]}";
  return out;
}

std::string UiApi::RangeStatistics(const TimeWindow& window,
                                   const std::vector<uint32_t>& tracks) const {
  CheckTracks(model_, tracks);
  struct Sum {
    uint64_t count = 0;
    int64_t total = 0;
    int64_t max = 0;
  };
  std::unordered_map<model::StringId, Sum> by_name;
  uint64_t slices = 0;
  auto add = [&](uint32_t slice) {
    Sum& sum = by_name[model_.slices.name[slice]];
    ++sum.count;
    sum.total += model_.slices.dur(slice);
    sum.max = std::max(sum.max, model_.slices.dur(slice));
    ++slices;
  };
  const int64_t t0 = window.t0 + origin_ns_;
  const int64_t t1 = window.t1 + origin_ns_;
  if (tracks.empty()) {
    for (uint32_t track = 0; track < model_.tracks.size(); ++track) {
      index_.ForEachSliceIn(track, t0, t1, add);
    }
  } else {
    for (uint32_t track : tracks) index_.ForEachSliceIn(track, t0, t1, add);
  }
  std::vector<std::pair<model::StringId, Sum>> rows(by_name.begin(), by_name.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
  std::string out = "{\"slices\":" + std::to_string(slices) +
                    ",\"names\":" + std::to_string(rows.size()) + ",\"rows\":[";
  for (size_t i = 0; i < rows.size() && i < kRangeStatisticsRows; ++i) {
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, model_.Str(rows[i].first));
    out += ',' + std::to_string(rows[i].second.count) + ',' + std::to_string(rows[i].second.total) +
           ',' + std::to_string(rows[i].second.max) + ']';
  }
  out += "]}";
  return out;
}

void UiApi::Search(std::string_view text, size_t limit, const JsonSink& out) const {
  if (text.empty()) throw ApiError(400, "search: the parameter q (text to find) is empty");
  const model::Model& m = model_;
  const std::string needle = Lowercase(text);
  std::vector<uint8_t> matches(m.strings.size(), 0);
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    matches[id] = Lowercase(m.strings.Get(id)).find(needle) != std::string::npos;
  }
  std::vector<uint32_t> found;
  uint64_t total = 0;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (!matches[m.slices.name[row]]) continue;
    ++total;
    if (found.size() < limit) found.push_back(row);
  }
  std::sort(found.begin(), found.end(),
            [&](uint32_t a, uint32_t b) { return m.slices.ts[a] < m.slices.ts[b]; });
  std::string piece = "{\"total\":" + std::to_string(total) + ",\"matches\":[";
  for (size_t i = 0; i < found.size(); ++i) {
    const uint32_t row = found[i];
    if (i > 0) piece += ',';
    piece += '[' + std::to_string(row) + ',' + std::to_string(m.slices.ts[row] - origin_ns_) + ',' +
             std::to_string(m.slices.dur(row)) + ',' + std::to_string(m.slices.track[row]) + ',' +
             std::to_string(m.slices.depth[row]) + ',';
    AppendJsonString(piece, m.Str(m.slices.name[row]));
    piece += ']';
    if (piece.size() >= kStreamPiece) {
      if (!out(piece)) return;
      piece.clear();
    }
  }
  piece += "]}";
  out(piece);
}

void UiApi::Table(std::string_view name, uint32_t step_id, const JsonSink& out) const {
  const model::Model& m = model_;
  if (name != "operators" && name != "kernels") {
    throw ApiError(404, "no table '" + std::string(name) + "' (tables: operators, kernels)");
  }
  analysis::ComputeTasks tasks = analysis::SelectComputeTasks(m);
  std::string piece =
      "{\"columns\":[\"Device_id\",\"OP Type\",\"Core Type\",\"Count\",\"Total Time(us)\","
      "\"Min Time(us)\",\"Avg Time(us)\",\"Max Time(us)\",\"Ratio(%)\"],\"missing\":";
  if (name == "kernels" && tasks.source != analysis::TaskSource::kDevice) {
    piece +=
        "\"this run has no device kernels (no CUDA source data): its compute tasks are the "
        "framework operators, shown under Operators\",\"rows\":[]}";
    out(piece);
    return;
  }
  if (tasks.rows.empty()) {
    piece +=
        "\"this run has no compute tasks (no kernels and no framework operators)\",\"rows\":[]}";
    out(piece);
    return;
  }
  piece += "null";
  if (step_id != model::kNoRow) {
    if (step_id >= m.steps.size()) throw ApiError(404, "no step " + std::to_string(step_id));
    std::erase_if(tasks.rows, [&](uint32_t row) {
      return m.slices.ts[row] < m.steps.ts[step_id] || m.slices.ts[row] >= m.steps.end[step_id];
    });
  }
  const analysis::TaskGroups groups = analysis::GroupByDeviceAndTaskType(m, tasks.rows);
  const std::vector<analysis::NameStatistics> stats =
      analysis::StatisticsByNameAndGroup(m, tasks.rows, groups.group_of_row);
  int64_t grand_total = 0;
  for (const auto& st : stats) grand_total += st.total_ns;
  piece += ",\"unit\":\"ns\",\"rows\":[";
  for (size_t i = 0; i < stats.size(); ++i) {
    const analysis::NameStatistics& st = stats[i];
    const std::string_view group = groups.names[st.group];
    const size_t tab = group.find('\t');
    if (i > 0) piece += ',';
    piece += '[';
    AppendJsonString(piece, group.substr(0, tab));
    piece += ',';
    AppendJsonString(piece, m.Str(st.name));
    piece += ',';
    AppendJsonString(piece, group.substr(tab + 1));
    piece += ',' + std::to_string(st.count) + ',' + std::to_string(st.total_ns) + ',' +
             std::to_string(st.min_ns) + ',' +
             std::to_string(static_cast<int64_t>(st.mean_ns + 0.5)) + ',' +
             std::to_string(st.max_ns) + ',';
    AppendJsonNumber(piece, grand_total > 0 ? 100.0 * static_cast<double>(st.total_ns) /
                                                  static_cast<double>(grand_total)
                                            : 0.0);
    piece += ']';
    if (piece.size() >= kStreamPiece) {
      if (!out(piece)) return;
      piece.clear();
    }
  }
  piece += "]}";
  out(piece);
}

}  // namespace aiprof::server
