// Iteration selection (--iteration-id=N or N-M): a copy of the model holding only the events
// that start inside the selected steps' time window [first step begin, last step end).
// Processes, threads, counters series and drop counts stay whole.
#pragma once

#include <cstdint>
#include <string>

#include "model/model.h"

namespace aiprof::model {

struct StepRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

// "N" or "N-M" (N ≤ M). False and `error` on anything else.
bool ParseStepRange(const std::string& text, StepRange* range, std::string* error);

// False and `error` when no step of the model falls in the range.
bool FilterToSteps(const Model& in, const StepRange& range, Model* out, std::string* error);

}  // namespace aiprof::model
