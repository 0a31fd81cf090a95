// The job's critical rank per step, from the ranks' summaries (rank_summary.h), never their
// traces: which rank gates each step and what its path is made of.
//
// Each rank's summary carries its own critical path per step (computed on its own trace:
// its threads, streams and loaders, a collective's time undivided) and its communication
// operations; the merge has matched those across the ranks and derived each one's wait
// (DerivePeerWait). The job's path is then walked backwards at the granularity of the
// collectives: from the rank whose step ends last, back through its work to its latest
// matched collective or send/recv that ended before; the transit after the last arrival is
// on that rank, and before it the path moves to the rank that arrived last (the others
// waited for it), and so on until the step's begin. The critical rank is the rank the path
// spends most time on (as in critical_path.h's job path); why: its own path by category.
// What this does not see (the whole-trace analysis does, `aiprof analyze --critical-path`
// over the ranks' directories): where inside a rank the path runs between two collectives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cluster/rank_summary.h"
#include "analysis/communication_analysis.h"
#include "analysis/critical_path/critical_path_columns.h"
#include "analysis/critical_path/path_category.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis::cluster {

struct ClusterCriticalStep {
  int64_t step = kNoStep;
  uint32_t loop = 0;
  uint32_t ranks = 0;    // ranks with the step's own path
  int64_t begin_ns = 0;  // the earliest rank's begin
  int64_t end_ns = 0;    // the last rank's end
  int32_t critical_rank = -1;
  int64_t on_path_ns = 0;         // the job's path on the critical rank
  uint32_t gated_operations = 0;  // collectives / p2p on the path whose last arrival it was
  CategoryTimes critical_own;     // the critical rank's own path in the step
  PathCategory gate = PathCategory::kIdle;  // critical_own's largest category
  int64_t peers_wait_ns = 0;                // the other ranks' communication wait in the step
  int32_t last_rank = -1;                   // the rank whose step ends last (where the walk starts)

  int64_t duration_ns() const { return end_ns - begin_ns; }
};

inline const CategoryTimes& PathCategoryTimes(const ClusterCriticalStep& step) {
  return step.critical_own;
}
// The critical rank's own path: "Own <category name>(us)" in the file, "own_<key>" (µs) in
// the table.
inline constexpr PathCategoryColumnNames kOwnPathCategoryColumnNames[kPathCategoryCount] = {
    {"Own compute(us)", "own_compute", ""},
    {"Own communication transit(us)", "own_comm_transit", ""},
    {"Own communication wait(us)", "own_comm_wait", ""},
    {"Own host overhead(us)", "own_host_overhead", ""},
    {"Own synchronisation(us)", "own_sync", ""},
    {"Own data loading(us)", "own_data_loading", ""},
    {"Own idle(us)", "own_idle", ""},
};
template <int C>
constexpr Column<ClusterCriticalStep> OwnCategoryColumn() {
  return PathCategoryColumn<ClusterCriticalStep, C>(kOwnPathCategoryColumnNames,
                                                    ColumnUnit::kNanoseconds, kFiles | kDatabase);
}

// cluster_critical_path.csv and ClusterCriticalPath after the step (and the table's loop).
inline constexpr Column<ClusterCriticalStep> kClusterCriticalStepColumns[] = {
    {"Ranks", "ranks", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) -> int64_t { return s.ranks; }},
    {"Step Time(us)", "step_time", "", ColumnUnit::kNanoseconds, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) { return s.duration_ns(); }},
    {"Critical Rank", "critical_rank", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) -> int64_t { return s.critical_rank; }},
    {"On Path(us)", "on_path", "", ColumnUnit::kNanoseconds, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) { return s.on_path_ns; }},
    RealColumn<ClusterCriticalStep>(
        "On Path(%)", "on_path_share", "", ColumnUnit::kPercentage, kFiles,
        [](const ClusterCriticalStep& s) {
          return s.duration_ns() > 0 ? 100.0 * static_cast<double>(s.on_path_ns) /
                                           static_cast<double>(s.duration_ns())
                                     : 0.0;
        }),
    {"Gated Operations", "gated_operations", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) -> int64_t { return s.gated_operations; }},
    TextColumn<ClusterCriticalStep>(
        "Gate", "gate", "", kFiles | kDatabase,
        [](const ClusterCriticalStep& s) { return std::string(PathCategoryName(s.gate)); }),
    {"Peers Wait(us)", "peers_wait", "", ColumnUnit::kNanoseconds, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) { return s.peers_wait_ns; }},
    {"Last Rank", "last_rank", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterCriticalStep& s) -> int64_t { return s.last_rank; }},
    OwnCategoryColumn<0>(),
    OwnCategoryColumn<1>(),
    OwnCategoryColumn<2>(),
    OwnCategoryColumn<3>(),
    OwnCategoryColumn<4>(),
    OwnCategoryColumn<5>(),
    OwnCategoryColumn<6>(),
};

// Per step (by loop, then number) of the ranks that carry their own path; `ops` are the
// merged operations (ClusterResult::comm_ops, wait derived). Empty when no summary has one.
std::vector<ClusterCriticalStep> ComputeClusterCriticalPath(
    const std::vector<RankSummary>& summaries, const std::vector<CommOpTiming>& ops);

}  // namespace aiprof::analysis::cluster
