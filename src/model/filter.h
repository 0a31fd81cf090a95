// Iteration selection (--iteration-id, steps.h's StepRange): a copy of the model holding only
// the events that start inside the selected steps' time window [first step begin, last step
// end), and the selected steps. Processes, threads, counters series and drop counts stay
// whole.
#pragma once

#include <cstdint>
#include <string>

#include "model/model.h"
#include "model/steps.h"

namespace aiprof::model {

// False and `error` when the range selects no step (SelectSteps).
bool FilterToSteps(const Model& in, const StepRange& range, Model* out, std::string* error);

}  // namespace aiprof::model
