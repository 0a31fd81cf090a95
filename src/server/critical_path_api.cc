// The Critical path view's API over the one AnalysisSet's critical path
// (analysis/critical_path/critical_path.h): per step the attribution, critical rank and thread
// and the standard projections; one step's path piece by piece (both rows written from their
// descriptions, analysis/critical_path/critical_path_columns.h); the path as a timeline lane
// over a window; and the what-if sliders, each combination re-solved on every step's graph
// (analysis::ProjectSteps), not scaled from the attribution.
#include "server/critical_path_api.h"

#include <algorithm>

#include "analysis/critical_path/critical_path.h"
#include "analysis/critical_path/critical_path_columns.h"
#include "export/analysis/critical_path_files.h"
#include "model/steps.h"
#include "server/described_json.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

std::string StepLabel(const model::Model& m, const analysis::CriticalPathResult& r,
                      const analysis::CriticalPathStep& step) {
  return r.whole_run ? std::string("all")
                     : model::FormatStepLabel(model::HasSeveralLoops(m), step.loop, step.step);
}

}  // namespace

const analysis::CriticalPathResult& CriticalPathApi::Result() const {
  return result_.Get(
      [this] { return analysis::ComputeCriticalPath(model_, analyses_.Analyses()); });
}

std::string CriticalPathApi::Summary() const {
  const analysis::CriticalPathResult& r = Result();
  std::string out = "{\"whole_run\":";
  out += r.whole_run ? "true" : "false";
  // The categories' names, and the keys their columns have in each step.
  out += ",\"categories\":[";
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    if (c > 0) out += ',';
    AppendJsonString(out, analysis::PathCategoryName(static_cast<analysis::PathCategory>(c)));
  }
  out += "],\"category_keys\":[";
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    if (c > 0) out += ',';
    AppendJsonString(out, analysis::kPathCategoryColumnNames[c].key);
  }
  out += "],\"step_ns\":" + std::to_string(r.step_ns) +
         ",\"dropped_edges\":" + std::to_string(r.dropped_edges) + ",\"what_ifs\":[";
  for (size_t i = 0; i < r.what_ifs.size(); ++i) {
    const analysis::WhatIfSummary& w = r.what_ifs[i];
    if (i > 0) out += ',';
    AppendObject<analysis::WhatIfRow>(out, "", analysis::kWhatIfColumns,
                                      {w, w.step_ns, w.projected_ns, r.steps.size()}, origin_ns_);
  }
  // The step's index and label, its described columns and its projected time per what-if.
  out += "],\"steps\":[";
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const analysis::CriticalPathStep& step = r.steps[i];
    if (i > 0) out += ',';
    std::string own = "\"id\":" + std::to_string(i) + ",\"label\":";
    AppendJsonString(own, StepLabel(model_, r, step));
    own += ",\"projected\":[";
    for (size_t k = 0; k < step.projected_ns.size(); ++k) {
      if (k > 0) own += ',';
      own += std::to_string(step.projected_ns[k]);
    }
    own += ']';
    const std::string thread = exporter::CriticalPathThreadLabel(model_, step.critical_thread);
    AppendObject<analysis::CriticalPathStepRow>(out, own, analysis::kCriticalPathStepColumns,
                                                {step, thread}, origin_ns_);
  }
  out += "]}";
  return out;
}

std::string CriticalPathApi::Segments(size_t step_index) const {
  const analysis::CriticalPathResult& r = Result();
  if (step_index >= r.steps.size()) throw ApiError(400, "parameter step: no such step");
  const analysis::CriticalPathStep& step = r.steps[step_index];
  std::string out = "{\"segments\":[";
  for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
    const analysis::CriticalPathSegment s = r.Segment(model_, step, i);
    if (i > step.first_segment) out += ',';
    const std::string thread = exporter::CriticalPathThreadLabel(model_, s.thread);
    AppendObject<analysis::CriticalPathSegmentRow>(
        out, "", analysis::kCriticalPathSegmentColumns,
        {s, exporter::CriticalPathSliceName(model_, s.slice), thread}, origin_ns_);
  }
  out += "]}";
  return out;
}

std::string CriticalPathApi::Lane(const TimeWindow& window) const {
  const analysis::CriticalPathResult& r = Result();
  const int64_t t0 = window.t0 + origin_ns_, t1 = window.t1 + origin_ns_;
  const int64_t ns_per_px = std::max<int64_t>((window.t1 - window.t0) / window.pixels, 1);
  // [begin, duration, category] per piece in the window; pieces narrower than a pixel are
  // merged into the piece before them when it is within a pixel (the longer's category).
  std::string out = "{\"pieces\":[";
  bool first = true;
  int64_t begin = 0, end = -1, longest = 0;
  int category = 0;
  auto flush = [&] {
    if (end < 0) return;
    if (!first) out += ',';
    first = false;
    out += '[' + std::to_string(begin - origin_ns_) + ',' + std::to_string(end - begin) + ',' +
           std::to_string(category) + ']';
    end = -1;
  };
  for (const analysis::CriticalPathStep& step : r.steps) {
    if (step.end_ns <= t0 || step.begin_ns >= t1) continue;
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const analysis::CriticalPathSegment s = r.Segment(model_, step, i);
      if (s.end_ns <= t0 || s.begin_ns >= t1) continue;
      const int64_t length = s.end_ns - s.begin_ns;
      if (end >= 0 && s.begin_ns - end < ns_per_px &&
          (length < ns_per_px || end - begin < ns_per_px)) {
        end = std::max(end, s.end_ns);
        if (length > longest) {
          longest = length;
          category = static_cast<int>(s.category);
        }
        continue;
      }
      flush();
      begin = s.begin_ns;
      end = s.end_ns;
      longest = length;
      category = static_cast<int>(s.category);
    }
  }
  flush();
  out += "]}";
  return out;
}

std::string CriticalPathApi::WhatIf(const WhatIfQuery& query) const {
  const analysis::AnalysisSet& set = analyses_.Analyses();
  const analysis::CriticalPathResult& r = Result();
  std::vector<analysis::WhatIfSpec> specs;
  auto add = [&](analysis::WhatIfKind kind) {
    analysis::WhatIfSpec spec;
    spec.kind = kind;
    specs.push_back(spec);
  };
  if (query.data_loading_free) add(analysis::WhatIfKind::kDataLoadingFree);
  if (query.communication_overlapped) add(analysis::WhatIfKind::kCommunicationOverlapped);
  if (query.rank_at_median) add(analysis::WhatIfKind::kRankAtMedian);
  if (!query.operator_name.empty() && query.operator_speedup > 0) {
    specs.push_back({analysis::WhatIfKind::kOperatorFaster, query.operator_name,
                     analysis::PathCategory::kCompute, query.operator_speedup});
  }
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    if (query.category_speedup[c] > 0) {
      specs.push_back({analysis::WhatIfKind::kCategoryFaster, "",
                       static_cast<analysis::PathCategory>(c), query.category_speedup[c]});
    }
  }
  std::vector<int64_t> projected;
  if (specs.empty()) {
    for (const analysis::CriticalPathStep& step : r.steps) projected.push_back(step.duration_ns());
  } else {
    projected = analysis::ProjectSteps(model_, set, specs);
  }
  int64_t total = 0;
  std::string steps;
  for (size_t i = 0; i < projected.size(); ++i) {
    if (i > 0) steps += ',';
    steps += std::to_string(projected[i]);
    total += projected[i];
  }
  std::string out = "{\"applied\":[";
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, specs[i].Describe());
  }
  out += "],\"step_ns\":" + std::to_string(r.step_ns) +
         ",\"projected_ns\":" + std::to_string(total) + ",\"steps\":[" + steps + "]}";
  return out;
}

}  // namespace aiprof::server
