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
