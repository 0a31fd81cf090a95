// The critical path section of `aiprof analyze --critical-path`: per step what limits it
// (the path's time by category, the critical rank and thread, the longest pieces), each
// rank's own view, and what the standard what-if projections would save.
#pragma once

#include <iosfwd>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

void PrintCriticalPathReport(const model::Model& model, const analysis::AnalysisSet& set,
                             std::ostream& out);

}  // namespace aiprof::exporter
