// The lines of `aiprof analyze`'s report for the data-preparation, memory, kernel and
// idle-time analyses: the input-wait share, each memory pool's peak, the temporal breakdown
// and idle split per device (host process on CPU-only runs), and the launch statistics.
#pragma once

#include <iosfwd>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

void PrintResourceReport(const model::Model& model, const analysis::AnalysisSet& set,
                         std::ostream& out);

}  // namespace aiprof::exporter
