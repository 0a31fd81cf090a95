// The critical path of each step, across threads, streams, DataLoader workers and ranks, its
// attribution by category, the slack of everything off it, and what-if projections: "what
// limits this step, and what would fixing it buy". docs/analysis.md "Critical path" says
// how the graph is built, what is not modelled and how projections are computed.
//
// A step is the step model's (model/steps.h); the ranks' steps with the same loop and number
// are one job step, solved as one graph whose collectives join the ranks. Per step:
//   - the job's path (the longest path to the last rank's end), as segments, attributed by
//     category (path_category.h); the parts sum to the job step's time (earliest rank's
//     begin to the last rank's end);
//   - each rank's own path (its end back to its begin through its own threads, streams and
//     loaders; a wait for a peer stays on its own chain as communication wait): sums to the
//     rank's step time, and its communication wait is the communication analysis's wait;
//   - the critical rank: the rank the job's path spends most time on;
//   - the near-critical work: the outermost slices the path does not run through with the
//     least slack (how long each could end later without delaying the step);
//   - the standard projections (data loading free; the run's top operator/kernel 2× faster;
//     the slowest rank at the median rank's speed; communication fully overlapped).
// Agreement with the step breakdown (step_breakdown.h): on a one-thread CPU-only step whose
// path stays on its thread, compute is the breakdown's Computing, data loading its Input
// wait and idle + host overhead its idle; a path through a loader covers the loader's time
// from the step's begin to the hand-off, which holds the input wait and the step's work the
// loader overlapped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/critical_path/path_category.h"
#include "analysis/critical_path/what_if.h"
#include "model/model.h"

namespace aiprof::analysis {

struct AnalysisSet;

// A piece of the job's critical path, as CriticalPathResult::Segment gives it.
struct CriticalPathSegment {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  PathCategory category = PathCategory::kIdle;
  uint32_t slice = model::kNoRow;   // whose self time it is; kNoRow: a gap or a latency
  uint32_t thread = model::kNoRow;  // ThreadTable row of the thread or stream it is on
  int32_t rank = -1;
  bool latency = false;  // an edge's latency: launch delay, hand-off, transit after arrival
};

// One rank's part of a step.
struct CriticalPathRank {
  int32_t rank = -1;
  uint32_t step_id = model::kNoRow;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  CategoryTimes own;           // its own path: sums to end − begin
  int64_t on_job_path_ns = 0;  // the job's path on this rank's threads, streams and loaders
};

// A name on the path (self time of an operator, kernel, wait...).
struct CriticalPathItem {
  model::StringId name = model::kNoString;
  PathCategory category = PathCategory::kCompute;
  int64_t ns = 0;
};

// Work of a step that its path does not run through (an outermost such slice: its parent, if
// any, is on the path), and how long its end could slip without delaying the step's end.
// Slack 0 ties the path: a parallel chain as long as the path.
struct NearCriticalSlice {
  uint32_t slice = model::kNoRow;
  int64_t slack_ns = 0;
  PathCategory category = PathCategory::kIdle;
};

struct CriticalPathStep {
  uint32_t step_id = model::kNoRow;  // the step of the first rank (model::StepTable row)
  uint64_t step = 0;
  uint32_t loop = 0;
  int64_t begin_ns = 0;  // the earliest rank's begin
  int64_t end_ns = 0;    // the last rank's end
  int32_t critical_rank = -1;
  uint32_t critical_thread = model::kNoRow;       // where the path spends most time
  CategoryTimes attribution;                      // the job's path: sums to end − begin
  uint32_t first_segment = 0, segment_count = 0;  // CriticalPathResult::segments rows
  uint32_t first_rank = 0, rank_count = 0;        // CriticalPathResult::ranks
  uint32_t first_near = 0, near_count = 0;        // CriticalPathResult::near_critical
  std::vector<CriticalPathItem> top_items;        // the longest names on the path
  std::vector<int64_t> projected_ns;  // per CriticalPathResult::what_ifs: projected time
  uint64_t nodes = 0, edges = 0, dropped_edges = 0, cycle_edges = 0;

  int64_t duration_ns() const { return end_ns - begin_ns; }
};

struct WhatIfSummary {
  WhatIfSpec spec;
  bool applicable = false;   // some step had what it changes
  int64_t step_ns = 0;       // Σ step time over the steps
  int64_t projected_ns = 0;  // Σ projected step time
  int64_t saving_ns() const { return step_ns - projected_ns; }
  double saving_share() const {
    return step_ns > 0 ? static_cast<double>(saving_ns()) / static_cast<double>(step_ns) : 0.0;
  }
};

// The job's paths piece by piece, 13 bytes a piece (a path holds about one piece per event on
// it): a piece ends where the next begins, a step's last where the step ends; the rank is its
// thread's process's.
struct CriticalPathSegments {
  static constexpr uint8_t kGap = 0x40;      // nothing recorded: `ref` is the thread
  static constexpr uint8_t kLatency = 0x80;  // an edge's latency: `ref` is the thread
  std::vector<int64_t> begin_ns;
  std::vector<uint32_t> ref;  // slice row of the self time, or ThreadTable row
  std::vector<uint8_t> kind;  // PathCategory | kGap | kLatency
  size_t size() const { return begin_ns.size(); }
};

struct CriticalPathResult {
  bool computed = false;   // AnalysisOptions::critical_path: nothing below otherwise
  bool whole_run = false;  // no steps: each process's recorded span is one "step"
  std::vector<CriticalPathStep> steps;
  CriticalPathSegments segments;        // per step, in time order
  std::vector<CriticalPathRank> ranks;  // per step, by rank
  // Per step, least slack first (at most kNearCriticalPerStep): what would be critical next.
  std::vector<NearCriticalSlice> near_critical;
  static constexpr size_t kNearCriticalPerStep = 10;
  std::vector<WhatIfSummary> what_ifs;  // the standard projections over all steps
  CategoryTimes attribution;            // Σ over the steps
  int64_t step_ns = 0;                  // Σ step time
  uint64_t dropped_edges = 0;
  // Per slice: how long (ns) its end could slip without delaying its step's end (latest −
  // earliest finish; a float: 4 bytes a slice, ~1e-7 relative); +infinity for slices that
  // gate no step's end or lie outside every step.
  std::vector<float> slice_slack;

  const WhatIfSummary* Find(WhatIfKind kind) const;
  // Piece `i` (an index into `segments`) of `step`'s path.
  CriticalPathSegment Segment(const model::Model& model, const CriticalPathStep& step,
                              uint32_t i) const;
};

// The critical path one job step at a time, on one run index: ComputeCriticalPath solves every
// step through it, and the UI's server (server/critical_path_api.h) the steps a view asks for,
// so both compute each figure the same way. Holds the run index (2 bits a slice and each
// track's slices in order) and one step's graph and scratch, reused from step to step; not
// safe to use from two threads at once.
class CriticalPathSolver {
 public:
  CriticalPathSolver(const model::Model& model, const AnalysisSet& set);
  ~CriticalPathSolver();
  CriticalPathSolver(const CriticalPathSolver&) = delete;
  CriticalPathSolver& operator=(const CriticalPathSolver&) = delete;

  bool whole_run() const;  // no steps: each process's recorded span is one "step"
  // The job steps, in time order (the run's steps grouped across ranks).
  size_t size() const;
  // Whether job step `step` has a path (its thread has a track): those with one are
  // CriticalPathResult::steps, in the same order.
  bool HasPath(size_t step) const;
  // A result with no step solved yet: the standard projections named, and with
  // `with_slice_slack` each slice's slack at +infinity.
  CriticalPathResult EmptyResult(bool with_slice_slack) const;
  // Solves job step `step` into `result` (from EmptyResult): appends the step, its pieces,
  // ranks and near-critical work, adds it to the sums, and lowers the slack of its slices when
  // the result holds the slack. False (nothing added) when the step has no path.
  bool Solve(size_t step, CriticalPathResult* result);
  // Job step `step` re-solved with `specs` applied together: its projected time (its time
  // when none applies; 0 when it has no path).
  int64_t Project(size_t step, const std::vector<WhatIfSpec>& specs);

 private:
  struct State;
  const model::Model& model_;
  std::unique_ptr<State> state_;
};

// The number of steps with a path (CriticalPathResult::steps.size()) without solving any:
// from the step model alone when the run has steps.
size_t CountCriticalPathSteps(const model::Model& model, const AnalysisSet& set);

CriticalPathResult ComputeCriticalPath(const model::Model& model, const AnalysisSet& so_far);

// Every job step re-solved with `specs` applied together (the UI's what-if sliders): per job
// step (CriticalPathSolver's), the projected time.
std::vector<int64_t> ProjectSteps(CriticalPathSolver& solver, const std::vector<WhatIfSpec>& specs);
std::vector<int64_t> ProjectSteps(const model::Model& model, const AnalysisSet& set,
                                  const std::vector<WhatIfSpec>& specs);

}  // namespace aiprof::analysis
