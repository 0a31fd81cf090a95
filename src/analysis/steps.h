// The steps every per-step analysis uses: a view of the model's step model
// (model/steps.h: the sources, their precedence, loops and `--iteration-id`), which is the
// only place steps are found. A run without steps has an empty list: per-step analyses then
// report the whole collection as one row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/steps.h"

namespace aiprof::analysis {

using model::StepSource;
using model::StepSourceName;

struct StepSpan {
  uint32_t id = 0;      // StepTable row: unique in the run
  uint64_t step = 0;    // the user's number
  uint32_t loop = 0;    // loop ordinal within its process (model::StepLoopTable::ordinal)
  uint32_t thread = 0;  // ThreadTable row
  uint32_t slice = 0;   // SliceTable row of the range (steps.h), kNoRow when none
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

struct StepList {
  StepSource source = StepSource::kNone;
  std::vector<StepSpan> steps;  // by thread, then begin
  bool several_loops = false;   // a process has more than one loop (model::HasSeveralLoops)

  // "3", or "1:3" (loop 1, step 3) when the run has several loops: model::StepLabel.
  std::string Label(uint64_t step, uint32_t loop) const {
    return model::FormatStepLabel(several_loops, loop, step);
  }
};

// All steps, or those `selection` selects (model::SelectSteps; none when it selects none).
StepList StepsOf(const model::Model& model,
                 const std::optional<model::StepRange>& selection = std::nullopt);

}  // namespace aiprof::analysis
