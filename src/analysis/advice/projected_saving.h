// What fixing a finding would save: the critical path's what-if projection that models the
// finding (analysis/critical_path/what_if.h), re-solved on every step's graph, as a share of
// step time. The engine ranks triggered findings by it.
//   data_loading          data loading free
//   slow_rank             the slowest rank at the median rank's speed
//   communication_overlap communication fully overlapped
//   dominant_operators    the run's top operator/kernel 50% faster
// With several profiles the largest share among them (each profile's own steps).
#pragma once

#include "analysis/advice/advice.h"

namespace aiprof::analysis::advice {

// Sets finding->projected_saving and ->projection when the finding is triggered and a
// projection models it (and applied to some step).
void AddProjectedSaving(const AdviceInput& input, Finding* finding);

}  // namespace aiprof::analysis::advice
