// The step rows several rules read: those of the scope (device, or host process) that did
// the most computing, in step order; its step durations.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analysis_set.h"

namespace aiprof::analysis::advice {

std::vector<const StepBreakdownRow*> MainScopeRows(const AnalysisSet& analyses);

inline int64_t StepDurationNs(const StepBreakdownRow& row) {
  return row.end_ns - row.begin_ns;
}

double Median(std::vector<double> values);

}  // namespace aiprof::analysis::advice
