#include "analysis/training_phase.h"

#include "analysis/input_wait.h"
#include "model/ascii_case.h"

namespace aiprof::analysis {

using model::ContainsNoCase;

uint8_t PhaseOfRange(std::string_view name) {
  if (IsInputWaitName(name)) return kInputPhase;
  if (ContainsNoCase(name, "optimizer")) return kOptimizerPhase;
  if (ContainsNoCase(name, "backward") || ContainsNoCase(name, "autograd::engine")) {
    return kBackwardPhase;
  }
  if (ContainsNoCase(name, "forward")) return kForwardPhase;
  return 0;
}

TrainingPhases::TrainingPhases(const model::Model& model, const std::vector<uint8_t>& tracks,
                               const std::vector<StepSpan>& steps)
    : model_(model),
      by_start_(model.slices, [](uint32_t row) { return row; }),
      phase_of_name_(model.strings.size(), -1) {
  const model::SliceTable& slices = model.slices;
  for (const StepSpan& step : steps) {
    if (step.slice != model::kNoRow) step_slices_.insert(step.slice);
  }
  for (uint32_t row = 0; row < slices.size(); ++row) {
    if (tracks[slices.track[row]] && !step_slices_.contains(row)) {
      by_start_.Add(slices.track[row], row);
    }
  }
  by_start_.Sort();
}

uint32_t TrainingPhases::Innermost(uint32_t track, int64_t ts) const {
  const model::SliceTable& slices = model_.slices;
  for (uint32_t row = by_start_.LastStartedBy(track, ts); row != model::kNoRow;
       row = slices.parent[row]) {
    if (slices.end[row] >= ts && !step_slices_.contains(row)) return row;
  }
  return model::kNoRow;
}

PhasesAt TrainingPhases::At(uint32_t track, int64_t ts) {
  const model::SliceTable& slices = model_.slices;
  PhasesAt at;
  at.innermost = Innermost(track, ts);
  // Up to the outermost range: each phase's end is overwritten by the ranges around it.
  for (uint32_t row = at.innermost; row != model::kNoRow; row = slices.parent[row]) {
    int16_t& phase = phase_of_name_[slices.name[row]];
    if (phase < 0) phase = PhaseOfRange(model_.Str(slices.name[row]));
    at.phases |= static_cast<uint8_t>(phase);
    if (phase != 0) at.end[phase] = slices.end[row];
  }
  return at;
}

}  // namespace aiprof::analysis
