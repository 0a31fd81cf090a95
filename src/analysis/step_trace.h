// Per-step split (msprof step_trace, MindInsight step interval / fp+bp / tail):
//   FP Start        first "forward" slice of the step (else its first child slice)
//   BP End          end of the last "backward" slice (else of the last child slice)
//   Iteration End   end of the step
//   FP to BP        BP End − FP Start
//   Refresh         Iteration End − BP End
//   Data Aug Bound  FP Start(i) − Iteration End(i−1); none for the first step
// Only slices of the step's own thread that lie entirely inside the step are considered;
// name matching is case-insensitive ("autograd::engine::evaluate_function: MmBackward0").
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

struct StepTraceRow {
  uint32_t step_id = 0;  // model::StepTable row
  uint64_t step = 0;     // the user's number
  uint32_t loop = 0;     // loop ordinal (model/steps.h)
  uint32_t thread = 0;  // ThreadTable row
  uint32_t slice = 0;   // the step's range (model::kNoRow for Optimizer.step steps)
  int64_t begin_ns = 0;
  int64_t fp_start_ns = 0;
  int64_t bp_end_ns = 0;
  int64_t iteration_end_ns = 0;
  bool has_data_aug_bound = false;
  int64_t data_aug_bound_ns = 0;

  int64_t iteration_time_ns() const { return iteration_end_ns - begin_ns; }
  int64_t fp_to_bp_ns() const { return bp_end_ns - fp_start_ns; }
  int64_t refresh_ns() const { return iteration_end_ns - bp_end_ns; }
};

// For `steps` (by thread, then begin, as StepsOf gives them); rows by step id.
std::vector<StepTraceRow> ComputeStepTrace(const model::Model& model,
                                           const std::vector<StepSpan>& steps);

}  // namespace aiprof::analysis
