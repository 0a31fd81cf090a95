// Runs every advice rule over the profiles given and ranks the findings.
#pragma once

#include <string>
#include <vector>

#include "analysis/advice/advice.h"
#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::analysis::advice {

// One profile's input: the analyses computed once for it (kept alive by the caller) and the
// facts read from its model. `label`: the rank when the model knows a single one, else the
// name given.
ProfileInput MakeProfileInput(const model::Model& model, const AnalysisSet& analyses,
                              const std::string& name);

AdviceReport RunAdvice(const AdviceInput& input, const Thresholds& thresholds);

}  // namespace aiprof::analysis::advice
