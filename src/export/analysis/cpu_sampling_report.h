// The CPU sampling lines of `aiprof analyze`'s report: the top functions by self and total
// samples over the whole profile, then per thread its samples and top function. Printed only
// when the profile has CPU samples; read from the AnalysisSet's one CpuProfile.
#pragma once

#include <cstddef>
#include <iosfwd>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

inline constexpr size_t kReportTopFunctions = 5;
inline constexpr size_t kReportCpuThreads = 8;  // more threads: the busiest, then a count

void PrintCpuSamplingReport(const model::Model& model, const analysis::AnalysisSet& set,
                            std::ostream& out);

}  // namespace aiprof::exporter
