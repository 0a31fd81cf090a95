// The cluster diagnosis of slow ranks, slow pipeline stages and divergent steps
// (msprof-analyze advisor's 5% spread rule), from the ranks' step rows and the wait the
// matched collectives made each rank spend per step:
//   a rank's own time per step = Stage + Preparing − its collective wait (the step less
//   the time it waited for other ranks); a rank whose mean own time exceeds the median
//   rank's by more than 5% is slow; why = the component with the largest excess over the
//   median rank: compute (Computing), data preparation (max(Preparing, input wait)), host
//   overhead (Free), or communication transit (Communication(Not Overlapped and Exclude
//   Receive) − wait: the receive bubble is no part of Stage, so none of the own time);
//   a divergent step: (max − min) / mean of the ranks' own time > 5%.
// With a known parallel layout (parallel_layout.h) the ranks of different pipeline stages
// do different work (the last stage computes the loss, the stages' transfers differ), so
// a rank is compared with the median rank of its own stage, and a step diverges when the
// ranks of one stage spread; the stages are compared with each other as msprof-analyze's
// stage rows are built: a stage's value per step is the maximum over its ranks (the
// slowest member bounds the stage), judged against the median stage by the same rule.
// Without a layout every rank is in one comparison, as before.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cluster/parallel_layout.h"
#include "analysis/cluster/rank_summary.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis::cluster {

// Per rank and step, what the matched collectives made it wait.
using WaitByStep = std::map<StepKey, int64_t>;

// The means per step a rank or a stage is judged on, and the verdict.
struct StepVerdict {
  uint64_t steps = 0;
  double own_ns = 0;  // Stage + Preparing − collective wait
  double computing_ns = 0;
  double preparing_ns = 0;  // max(Preparing, input wait)
  double free_ns = 0;
  double communication_wait_ns = 0;
  double transit_ns = 0;  // Communication(Not Overlapped and Exclude Receive) − wait
  bool slow = false;
  std::string reason;    // "compute", "data preparation", "host overhead", "communication transit"
  double excess_ns = 0;  // own time over the median's, per step
  double reason_ns = 0;  // the reason component's excess over the median's
};

struct RankVerdict : StepVerdict {
  int32_t rank = -1;
  std::string host;
  int32_t stage = -1;  // the pipeline stage it was compared within; -1: layout unknown
};

// A pipeline stage: per step the maximum over its ranks of each quantity.
struct StageVerdict : StepVerdict {
  int32_t stage = -1;
  std::vector<int32_t> ranks;  // ascending
};

struct DivergentStep {
  int64_t step = kNoStep;
  uint32_t loop = 0;
  int32_t stage = -1;  // the stage whose ranks spread; -1: layout unknown (all ranks)
  int32_t slowest_rank = -1;
  int32_t fastest_rank = -1;
  int64_t min_own_ns = 0;
  int64_t max_own_ns = 0;
  double spread = 0;  // (max − min) / mean
};

// The diagnosis as every writer shows it (analysis/result_columns.h): cluster_base_info.json's
// ranks_diagnosis, stages_diagnosis and divergent_steps (the headers, reals rounded to their
// unit's ClusterDecimals) and cluster.db's ClusterRankDiagnosis, ClusterStageDiagnosis and
// ClusterDivergentStep (the database names). A rank's or a stage's own columns come first,
// then its means per step (kStepVerdictColumns).
inline constexpr Column<StepVerdict> kStepVerdictColumns[] = {
    {"steps", "steps", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const StepVerdict& v) { return static_cast<int64_t>(v.steps); }},
    RealColumn<StepVerdict>("own_time_per_step_ms", "own_time_ms", "", ColumnUnit::kMilliseconds,
                            kFiles | kDatabase, [](const StepVerdict& v) { return v.own_ns; }),
    RealColumn<StepVerdict>("computing_per_step_ms", "computing_ms", "", ColumnUnit::kMilliseconds,
                            kFiles | kDatabase,
                            [](const StepVerdict& v) { return v.computing_ns; }),
    RealColumn<StepVerdict>("data_preparation_per_step_ms", "data_preparation_ms", "",
                            ColumnUnit::kMilliseconds, kFiles | kDatabase,
                            [](const StepVerdict& v) { return v.preparing_ns; }),
    RealColumn<StepVerdict>("free_per_step_ms", "free_ms", "", ColumnUnit::kMilliseconds,
                            kFiles | kDatabase, [](const StepVerdict& v) { return v.free_ns; }),
    RealColumn<StepVerdict>("communication_wait_per_step_ms", "communication_wait_ms", "",
                            ColumnUnit::kMilliseconds, kFiles | kDatabase,
                            [](const StepVerdict& v) { return v.communication_wait_ns; }),
    {"slow", "slow", "", ColumnUnit::kFlag, kFiles | kDatabase,
     [](const StepVerdict& v) -> int64_t { return v.slow ? 1 : 0; }},
    TextColumn<StepVerdict>("reason", "reason", "", kFiles | kDatabase,
                            [](const StepVerdict& v) { return v.reason; }),
    RealColumn<StepVerdict>("excess_per_step_ms", "excess_ms", "", ColumnUnit::kMilliseconds,
                            kFiles | kDatabase, [](const StepVerdict& v) { return v.excess_ns; }),
    RealColumn<StepVerdict>("", "reason_excess_ms", "", ColumnUnit::kMilliseconds, kDatabase,
                            [](const StepVerdict& v) { return v.reason_ns; }),
};

// A rank's own columns, before its kStepVerdictColumns.
inline constexpr Column<RankVerdict> kRankVerdictColumns[] = {
    {"rank", "rank_id", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const RankVerdict& v) -> int64_t { return v.rank; }},
    TextColumn<RankVerdict>("", "host", "", kDatabase, [](const RankVerdict& v) { return v.host; }),
    {"stage", "stage", "", ColumnUnit::kCount, kFiles | kWithParallelLayout,
     [](const RankVerdict& v) -> int64_t { return v.stage; }},
};

// A stage's own columns, before its kStepVerdictColumns. The files write the stage's ranks
// as a list of numbers, which is no cell: their writer adds it after these columns.
inline constexpr Column<StageVerdict> kStageVerdictColumns[] = {
    {"stage", "stage", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const StageVerdict& v) -> int64_t { return v.stage; }},
    TextColumn<StageVerdict>("", "ranks", "", kDatabase,
                             [](const StageVerdict& v) { return RankSet(v.ranks); }),
};

// After the step (the writers' key: its number in the files, NULL outside every step in the
// database).
inline constexpr Column<DivergentStep> kDivergentStepColumns[] = {
    {"stage", "stage", "", ColumnUnit::kCount, kFiles | kWithParallelLayout,
     [](const DivergentStep& d) -> int64_t { return d.stage; }},
    {"slowest_rank", "slowest_rank", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const DivergentStep& d) -> int64_t { return d.slowest_rank; }},
    {"fastest_rank", "fastest_rank", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const DivergentStep& d) -> int64_t { return d.fastest_rank; }},
    {"max_own_ms", "max_own_time_ms", "", ColumnUnit::kMilliseconds, kFiles | kDatabase,
     [](const DivergentStep& d) { return d.max_own_ns; }},
    {"min_own_ms", "min_own_time_ms", "", ColumnUnit::kMilliseconds, kFiles | kDatabase,
     [](const DivergentStep& d) { return d.min_own_ns; }},
    RealColumn<DivergentStep>("spread", "spread", "", ColumnUnit::kRatio, kFiles | kDatabase,
                              [](const DivergentStep& d) { return d.spread; }),
};

struct SlowRankDiagnosis {
  std::vector<RankVerdict> ranks;              // in the order of the summaries
  std::vector<StageVerdict> stages;            // by stage; empty when the layout is unknown
  std::vector<DivergentStep> divergent_steps;  // by spread, largest first
};

// `waits[i]` belongs to `summaries[i]`.
SlowRankDiagnosis DiagnoseSlowRanks(const std::vector<RankSummary>& summaries,
                                    const std::vector<WaitByStep>& waits,
                                    const ParallelLayout& layout);

}  // namespace aiprof::analysis::cluster
