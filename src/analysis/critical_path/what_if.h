// What-if projections: the step re-solved on its own graph with some time scaled, not a
// share subtracted. Scaling a piece of work moves everything that waited for it, and only
// as far as the other inputs of each join allow: a loader made free still leaves the step
// waiting for whatever else gates it.
//   data loading free        every data-loading segment and hand-off takes no time
//   <name> X% faster         every call of the operator or kernel (with everything inside
//                            it) takes (100 − X)% of its time
//   <category> X% faster     every piece of the category takes (100 − X)% of its time
//   rank at the median speed the slowest rank's compute and host overhead scaled so that
//                            its own busy time (compute + host overhead on its own path) is
//                            the median rank's; per step (the slowest rank may change)
//   communication overlapped communication transit takes no time (a peer's late arrival
//                            still gates: overlap hides transfers, not imbalance)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/critical_path/path_category.h"
#include "analysis/critical_path/path_graph.h"
#include "analysis/critical_path/path_solver.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class WhatIfKind : uint8_t {
  kDataLoadingFree,
  kOperatorFaster,
  kCategoryFaster,
  kRankAtMedian,
  kCommunicationOverlapped,
};
// "data_loading_free", "operator_faster", "category_faster", "rank_at_median",
// "communication_overlapped": the CSV/SQLite/JSON key.
std::string_view WhatIfKindKey(WhatIfKind kind);

struct WhatIfSpec {
  WhatIfKind kind = WhatIfKind::kDataLoadingFree;
  std::string name;                                // kOperatorFaster: the operator or kernel
  PathCategory category = PathCategory::kCompute;  // kCategoryFaster
  double speedup = 0.5;  // kOperatorFaster, kCategoryFaster: share of the time removed

  // "data loading free", "aten::mm 50% faster", "compute 30% faster", "slowest rank at the
  // median rank's speed", "communication fully overlapped".
  std::string Describe() const;
};

// Per member: its own busy time (compute + host overhead on its own path), from which the
// rank projection picks the slowest member and the median.
struct MemberBusy {
  std::vector<int64_t> busy_ns;
};

// The weights that apply `specs` together to `graph` (`owner_selected` is filled for an
// operator projection and must outlive the weights). False when none applies to this graph
// (a rank projection with one member, or the slowest member already at the median).
bool WeightsFor(const PathGraph& graph, const model::Model& model,
                const std::vector<WhatIfSpec>& specs, const MemberBusy& busy,
                std::vector<uint8_t>* owner_selected, PathWeights* weights);

// The projected end of the step: the latest member's projected end − the window's begin.
int64_t ProjectedStepNs(const PathGraph& graph, const ForwardPass& pass);

}  // namespace aiprof::analysis
