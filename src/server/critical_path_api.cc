// The Critical path view's API over the one AnalysisSet's critical path
// (analysis/critical_path/critical_path.h): per step the attribution, critical rank and thread
// and the standard projections; one step's path piece by piece (both rows written from their
// descriptions, analysis/critical_path/critical_path_columns.h); the path as a timeline lane
// over a window; and the what-if sliders, each combination re-solved on every step's graph
// (analysis::ProjectSteps), not scaled from the attribution. What is kept and what is solved
// again: critical_path_api.h.
#include "server/critical_path_api.h"

#include <malloc.h>

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

// The pieces of the result's step `step`, as the lane draws them.
void LanePiecesOf(const model::Model& m, const analysis::CriticalPathResult& r,
                  const analysis::CriticalPathStep& step, std::vector<LanePiece>* pieces) {
  pieces->clear();
  for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
    const analysis::CriticalPathSegment s = r.Segment(m, step, i);
    pieces->push_back({s.begin_ns, s.end_ns, static_cast<int>(s.category)});
  }
}

}  // namespace

size_t CriticalPathApi::StepCount() const {
  return step_count_.Get(
      [this] { return analysis::CountCriticalPathSteps(model_, analyses_.Analyses()); });
}

const CriticalPathApi::Paths& CriticalPathApi::Solved() const {
  return paths_.Get([this] {
    Paths paths;
    paths.solver = std::make_unique<analysis::CriticalPathSolver>(model_, analyses_.Analyses());
    analysis::CriticalPathSolver& solver = *paths.solver;
    analysis::CriticalPathResult& r = paths.summary;
    r = solver.EmptyResult(false);
    std::vector<LanePiece> pieces;
    for (size_t job_step = 0; job_step < solver.size(); ++job_step) {
      if (!solver.HasPath(job_step) || !solver.Solve(job_step, &r)) continue;
      ++steps_solved_;
      analysis::CriticalPathStep& step = r.steps.back();
      LanePiecesOf(model_, r, step, &pieces);
      paths.lane.AddStep(step.begin_ns, step.end_ns, pieces);
      paths.job_step.push_back(static_cast<uint32_t>(job_step));
      // Only the step's summary stays: its pieces are solved again when asked for.
      r.segments.begin_ns.clear();
      r.segments.ref.clear();
      r.segments.kind.clear();
      r.ranks.clear();
      r.near_critical.clear();
      step.first_segment = step.first_rank = step.first_near = 0;
    }
    r.steps.shrink_to_fit();
    pieces = {};
    malloc_trim(0);  // the steps' graphs and pieces, freed in blocks malloc keeps otherwise
    return paths;
  });
}

std::shared_ptr<const analysis::CriticalPathResult> CriticalPathApi::StepPath(size_t step) const {
  const Paths& paths = Solved();
  std::lock_guard lock(solver_mutex_);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first != step) continue;
    cache_.splice(cache_.begin(), cache_, it);  // most recently used first
    return cache_.front().second;
  }
  auto solved = std::make_shared<analysis::CriticalPathResult>(paths.solver->EmptyResult(false));
  paths.solver->Solve(paths.job_step[step], solved.get());
  ++steps_solved_;
  cached_pieces_ += solved->segments.size();
  cache_.emplace_front(step, solved);
  while (cache_.size() > 1 && cached_pieces_ > kCachedPieces) {
    cached_pieces_ -= cache_.back().second->segments.size();
    cache_.pop_back();
  }
  return solved;
}

void CriticalPathApi::StepPieces(size_t step, std::vector<LanePiece>* pieces) const {
  const std::shared_ptr<const analysis::CriticalPathResult> path = StepPath(step);
  LanePiecesOf(model_, *path, path->steps.front(), pieces);
}

std::string CriticalPathApi::Summary() const {
  const analysis::CriticalPathResult& r = Solved().summary;
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
  if (step_index >= Solved().summary.steps.size()) {
    throw ApiError(400, "parameter step: no such step");
  }
  const std::shared_ptr<const analysis::CriticalPathResult> path = StepPath(step_index);
  const analysis::CriticalPathResult& r = *path;
  const analysis::CriticalPathStep& step = r.steps.front();
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
  const int64_t t0 = window.t0 + origin_ns_, t1 = window.t1 + origin_ns_;
  const int64_t ns_per_px = std::max<int64_t>((window.t1 - window.t0) / window.pixels, 1);
  return Solved().lane.Write(
      t0, t1, ns_per_px, origin_ns_,
      [this](size_t step, std::vector<LanePiece>* pieces) { StepPieces(step, pieces); });
}

std::string CriticalPathApi::WhatIf(const WhatIfQuery& query) const {
  const Paths& paths = Solved();
  const analysis::CriticalPathResult& r = paths.summary;
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
    std::lock_guard lock(solver_mutex_);
    projected = analysis::ProjectSteps(*paths.solver, specs);
    steps_solved_ += projected.size();
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
