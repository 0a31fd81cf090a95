// /api/critical_path, /api/critical_path/segments, /api/critical_path/lane, /api/what_if: the
// Critical path view over the run's critical path (analysis/critical_path/critical_path.h),
// solved step by step with the export's solver (analysis::CriticalPathSolver) from the one
// AnalysisSet (critical_path_api.cc). It is not part of that set: `aiprof export` computes it
// only when asked (AnalysisOptions::critical_path).
//
// Memory: the export's result holds every piece of every step's path (13 bytes a piece, about
// two a slice) and each slice's slack (4 bytes a slice); the server keeps neither. On first use
// every step is solved once, and per step it keeps its summary (the Overview's and the view's
// figures) and what the lane draws at a pixel 1/16 of the step or wider (critical_path_lane.h).
// A step's pieces (/segments, a lane finer than that or cut by its window) are solved again
// when asked for, a few kept (kCachedPieces); what-ifs re-solve each step in turn on the kept
// solver, whose run index is 2 bits a slice (and each track's order as stretches of rows).
// The first pass's scratch, freed in blocks under malloc's mapping threshold, is given back
// after it (malloc_trim): the server's peak is the model's size (docs/PERFORMANCE.md).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "analysis/critical_path/critical_path.h"
#include "model/model.h"
#include "server/analysis_api.h"
#include "server/computed_once.h"
#include "server/critical_path_lane.h"

namespace aiprof::server {

class CriticalPathApi {
 public:
  CriticalPathApi(const model::Model& model, const AnalysisApi& analyses, int64_t origin_ns)
      : model_(model), analyses_(analyses), origin_ns_(origin_ns) {}

  struct WhatIfQuery {
    bool data_loading_free = false;
    bool communication_overlapped = false;
    bool rank_at_median = false;
    std::string operator_name;  // with operator_speedup > 0: that operator or kernel faster
    double operator_speedup = 0;
    std::array<double, analysis::kPathCategoryCount> category_speedup{};  // share removed
  };

  // The number of steps with a path (/api/analysis: the Overview's count and the timeline's
  // lane), from the step model: no step is solved for it.
  size_t StepCount() const;
  // Per step the path's attribution, critical rank and thread and the standard projections.
  std::string Summary() const;
  // One step's path piece by piece (its index in Summary's list; 400 when there is none).
  std::string Segments(size_t step_index) const;
  // The path as a timeline lane over a window, pieces merged to pixels.
  std::string Lane(const TimeWindow& window) const;
  // A what-if combination re-solved on every step's graph.
  std::string WhatIf(const WhatIfQuery& query) const;
  // How many steps' paths have been solved so far (each step once on first use, and again for
  // its pieces or a what-if): tests check what an answer costs.
  size_t steps_solved() const { return steps_solved_; }

  // The most path pieces kept of steps solved again (13 bytes each), and always the last step.
  static constexpr size_t kCachedPieces = size_t{1} << 20;

 private:
  // Every step solved once: the per-step summaries and the lane, and the solver kept.
  struct Paths {
    std::unique_ptr<analysis::CriticalPathSolver> solver;
    // Steps, projections and sums; no pieces, ranks, near-critical work or slack.
    analysis::CriticalPathResult summary;
    std::vector<uint32_t> job_step;  // per step of `summary`: the solver's job step
    CriticalPathLane lane;
  };
  const Paths& Solved() const;
  // Step `step` (of Summary's list) solved again: the result holds it alone, its pieces too.
  std::shared_ptr<const analysis::CriticalPathResult> StepPath(size_t step) const;
  void StepPieces(size_t step, std::vector<LanePiece>* pieces) const;

  const model::Model& model_;
  const AnalysisApi& analyses_;
  int64_t origin_ns_;
  ComputedOnce<size_t> step_count_;
  ComputedOnce<Paths> paths_;
  // Held while the solver runs after the first pass (its scratch is reused) and over the cache.
  mutable std::mutex solver_mutex_;
  mutable std::list<std::pair<size_t, std::shared_ptr<const analysis::CriticalPathResult>>> cache_;
  mutable size_t cached_pieces_ = 0;
  mutable std::atomic<size_t> steps_solved_{0};
};

}  // namespace aiprof::server
