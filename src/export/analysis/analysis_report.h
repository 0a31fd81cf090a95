// The compact, readable report `aiprof analyze` prints: what the run had, the step time
// table per scope with its breakdown, the breakdown over all steps, and the top operators.
#pragma once

#include <iosfwd>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

inline constexpr size_t kReportStepRows = 10;  // more steps: the first rows, then a count
inline constexpr size_t kReportTopOperators = 5;

void PrintAnalysisReport(const model::Model& model, const analysis::AnalysisSet& set,
                         std::ostream& out);

}  // namespace aiprof::exporter
