#include "server/analysis_api.h"

#include <algorithm>

#include "server/described_json.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

void AppendStrings(std::string& out, const std::vector<std::string>& items) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, items[i]);
  }
  out += ']';
}

// At most about `pixels` points of a (ts, value) series: the largest value per bucket, so a
// peak is never lost.
template <typename Point, typename Ts, typename Value>
void AppendDownsampled(std::string& out, const std::vector<Point>& points, int64_t origin,
                       int64_t pixels, Ts ts_of, Value value_of) {
  out += '[';
  if (!points.empty()) {
    const int64_t first = ts_of(points.front());
    const int64_t span = std::max<int64_t>(ts_of(points.back()) - first, 1);
    const int64_t bucket_ns = std::max<int64_t>(span / std::max<int64_t>(pixels, 1), 1);
    int64_t bucket = -1;
    int64_t best_ts = 0;
    double best = 0;
    bool any = false;
    auto flush = [&] {
      if (!any) return;
      if (out.back() != '[') out += ',';
      out += '[' + std::to_string(best_ts - origin) + ',';
      AppendJsonNumber(out, best);
      out += ']';
    };
    for (const Point& p : points) {
      const int64_t b = (ts_of(p) - first) / bucket_ns;
      const double v = value_of(p);
      if (b != bucket) {
        flush();
        bucket = b;
        best_ts = ts_of(p);
        best = v;
        any = true;
      } else if (v > best) {
        best = v;
        best_ts = ts_of(p);
      }
    }
    flush();
  }
  out += ']';
}

// The step's longest input-wait range (the data preparation analysis), or null.
std::string WaitSliceOf(const analysis::DataPreparationResult& data, uint32_t step_id) {
  if (step_id == model::kNoRow) return "null";
  const uint32_t row = data.RowOfStep(step_id);
  if (row == model::kNoRow || data.steps[row].longest_wait_slice == model::kNoRow) return "null";
  return std::to_string(data.steps[row].longest_wait_slice);
}

}  // namespace

const analysis::AnalysisSet& AnalysisApi::Analyses() const {
  return analyses_.Get([this] { return analysis::RunAnalyses(model_); });
}

std::string AnalysisApi::Summary(size_t critical_path_steps) const {
  const analysis::AnalysisSet& a = Analyses();
  std::string out = "{\"inputs\":";
  AppendJsonString(out, a.inputs.Describe());
  out += ",\"step_source\":";
  AppendJsonString(out, analysis::StepSourceName(a.step_breakdown.step_source));
  out += ",\"critical_path_steps\":" + std::to_string(critical_path_steps);
  out += ",\"scopes\":[";
  for (size_t i = 0; i < a.overlap.scopes.size(); ++i) {
    const analysis::OverlapScope& scope = a.overlap.scopes[i];
    if (i > 0) out += ',';
    out += "{\"process\":" + std::to_string(scope.process) +
           ",\"device\":" + std::to_string(scope.device_id) +
           ",\"rank\":" + std::to_string(scope.rank) + ",\"compute_input\":";
    AppendJsonString(out, analysis::ComputeInputName(scope.compute_input));
    out += '}';
  }
  out += "],\"step_breakdown\":[";
  const auto& rows = a.step_breakdown.rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    const analysis::StepBreakdownRow& r = rows[i];
    if (i > 0) out += ',';
    out += "{\"id\":" +
           (r.step_id == model::kNoRow ? std::string("null") : std::to_string(r.step_id)) +
           ",\"label\":";
    AppendJsonString(out, r.step_id == model::kNoRow ? "all" : a.steps.Label(r.step, r.loop));
    out += ",\"step\":" + std::to_string(r.step) + ",\"scope\":" + std::to_string(r.scope) +
           ",\"begin\":" + std::to_string(r.begin_ns - origin_ns_) +
           ",\"duration\":" + std::to_string(r.end_ns - r.begin_ns);
    AppendColumns<analysis::StepParts>(out, analysis::kStepTraceTimeColumns, r, origin_ns_);
    out += ",\"wait_slice\":" + WaitSliceOf(a.data_preparation, r.step_id) + '}';
  }
  // msprof's step_trace per step: the rows `aiprof export` writes to step_trace_*.csv.
  out += "],\"step_trace\":[";
  const std::vector<analysis::StepTraceRow>& trace = a.step_breakdown.trace;
  for (size_t i = 0; i < trace.size(); ++i) {
    const analysis::StepTraceRow& r = trace[i];
    if (i > 0) out += ',';
    out += "{\"id\":" + std::to_string(r.step_id) + ",\"label\":";
    AppendJsonString(out, a.steps.Label(r.step, r.loop));
    out += ",\"step\":" + std::to_string(r.step) +
           ",\"begin\":" + std::to_string(r.begin_ns - origin_ns_) +
           ",\"iteration\":" + std::to_string(r.iteration_time_ns()) +
           ",\"fp_to_bp\":" + std::to_string(r.fp_to_bp_ns()) +
           ",\"refresh\":" + std::to_string(r.refresh_ns()) + ",\"data_aug_bound\":" +
           (r.has_data_aug_bound ? std::to_string(r.data_aug_bound_ns) : "null") + "}";
  }
  out += "]}";
  return out;
}

std::string AnalysisApi::Memory(int64_t pixels) const {
  const analysis::MemoryAnalysis& m = Analyses().memory;
  std::string out = "{\"inputs\":";
  AppendStrings(out, m.inputs);
  out += ",\"pools\":[";
  for (size_t i = 0; i < m.pools.size(); ++i) {
    const analysis::MemoryPool& pool = m.pools[i];
    if (i > 0) out += ',';
    out += "{\"process\":" + std::to_string(pool.process) +
           ",\"pid\":" + std::to_string(model_.processes.pid[pool.process]) + ",\"role\":";
    AppendJsonString(out, role_labels_[pool.process]);
    AppendColumns<analysis::MemoryPool>(out, analysis::kMemoryPoolColumns, pool, origin_ns_);
    out += ",\"allocated\":";
    AppendDownsampled(
        out, pool.samples, origin_ns_, pixels, [](const analysis::MemorySample& s) { return s.ts; },
        [](const analysis::MemorySample& s) { return static_cast<double>(s.allocated); });
    out += ",\"reserved\":";
    if (pool.peak_reserved >= 0) {
      AppendDownsampled(
          out, pool.samples, origin_ns_, pixels,
          [](const analysis::MemorySample& s) { return s.ts; },
          [](const analysis::MemorySample& s) { return static_cast<double>(s.reserved); });
    } else {
      out += "null";
    }
    out += '}';
  }
  out += "],\"categories\":[";
  for (size_t i = 0; i < m.category_tracks.size(); ++i) {
    const analysis::MemoryCategoryTrack& track = m.category_tracks[i];
    if (i > 0) out += ',';
    out += "{\"pool\":" + std::to_string(track.pool) + ",\"category\":";
    AppendJsonString(out, analysis::MemoryCategoryName(track.category));
    out += ",\"peak\":" + std::to_string(track.peak) + ",\"points\":";
    AppendDownsampled(
        out, track.points, origin_ns_, pixels, [](const auto& p) { return p.first; },
        [](const auto& p) { return static_cast<double>(p.second); });
    out += '}';
  }
  out += "],\"top_operators\":[";
  for (size_t i = 0; i < m.top_operators.size(); ++i) {
    const analysis::OperatorMemoryRow& row = m.top_operators[i];
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, row.name);
    out += ',' + std::to_string(row.pool) + ',' + std::to_string(row.allocations) + ',' +
           std::to_string(row.allocated_bytes) + ',' + std::to_string(row.max_allocation) + ',' +
           std::to_string(row.freed_bytes) + ']';
  }
  out += "]}";
  return out;
}

std::string AnalysisApi::DataPreparation() const {
  const analysis::DataPreparationResult& d = Analyses().data_preparation;
  std::string out = "{\"inputs\":";
  AppendStrings(out, d.inputs);
  out += ",\"has_queue_view\":";
  out += d.has_queue_view ? "true" : "false";
  AppendColumns<analysis::DataPreparationResult>(out, analysis::kDataPreparationSummaryColumns, d,
                                                 origin_ns_);
  out += ",\"steps\":[";
  for (size_t i = 0; i < d.steps.size(); ++i) {
    const analysis::DataPreparationStep& s = d.steps[i];
    if (i > 0) out += ',';
    out += "{\"id\":" + std::to_string(s.step_id) + ",\"label\":";
    AppendJsonString(out, Analyses().steps.Label(s.step, s.loop));
    out += ",\"tid\":" + std::to_string(model_.threads.tid[s.thread]);
    AppendColumns<analysis::DataPreparationStep>(out, analysis::kDataPreparationColumns, s,
                                                 origin_ns_);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string AnalysisApi::Overlap(const TimeWindow& window) const {
  const analysis::OverlapResult& overlap = Analyses().overlap;
  const int64_t t0 = window.t0 + origin_ns_;
  const int64_t t1 = window.t1 + origin_ns_;
  const int64_t ns_per_px = std::max<int64_t>((window.t1 - window.t0) / window.pixels, 1);
  std::string out = "{\"scopes\":[";
  for (size_t i = 0; i < overlap.scopes.size(); ++i) {
    const analysis::OverlapScope& scope = overlap.scopes[i];
    if (i > 0) out += ',';
    out += "{\"process\":" + std::to_string(scope.process) + ",\"lanes\":[[";
    analysis::LaneCursor cursor(scope);
    analysis::OverlapLane lane;
    analysis::Interval interval;
    int current = 0;
    bool first = true;
    int64_t pending_begin = 0;
    int64_t pending_end = -1;
    auto flush = [&] {
      if (pending_end < 0) return;
      if (!first) out += ',';
      first = false;
      out += '[' + std::to_string(pending_begin - origin_ns_) + ',' +
             std::to_string(pending_end - pending_begin) + ']';
      pending_end = -1;
    };
    while (cursor.Next(&lane, &interval)) {
      while (static_cast<int>(lane) > current) {  // next lane: close this one
        flush();
        out += "],[";
        first = true;
        ++current;
      }
      if (interval.end <= t0 || interval.begin >= t1) continue;
      if (pending_end >= 0 && interval.begin - pending_end < ns_per_px) {
        pending_end = std::max(pending_end, interval.end);  // within a pixel: one block
        continue;
      }
      flush();
      pending_begin = interval.begin;
      pending_end = interval.end;
    }
    flush();
    while (current < analysis::kOverlapLaneCount - 1) {
      out += "],[";
      ++current;
    }
    out += "]]}";
  }
  out += "],\"lanes\":[";
  for (int l = 0; l < analysis::kOverlapLaneCount; ++l) {
    if (l > 0) out += ',';
    AppendJsonString(out, analysis::OverlapLaneName(static_cast<analysis::OverlapLane>(l)));
  }
  out += "]}";
  return out;
}

}  // namespace aiprof::server
