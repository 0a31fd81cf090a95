// The phase of a training step a moment of a thread falls in, read from the ranges around it
// by name (case-insensitive): an input wait (analysis/input_wait.h), "optimizer", "backward"
// or "autograd::engine", "forward". The memory analysis categorises a block by the phases
// around its allocation and its free (memory.h lists the rules).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/slices_by_start.h"
#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

// One bit per phase; a moment may lie in several (a forward range inside an input wait).
enum TrainingPhase : uint8_t {
  kInputPhase = 1,
  kOptimizerPhase = 2,
  kBackwardPhase = 4,
  kForwardPhase = 8,
};

// The phase a range of this name marks; 0 when none.
uint8_t PhaseOfRange(std::string_view name);

// Where on its thread a moment falls.
struct PhasesAt {
  uint32_t innermost = model::kNoRow;  // the innermost slice around it, steps passed over
  uint8_t phases = 0;                  // the TrainingPhase bits of the ranges around it
  int64_t end[kForwardPhase + 1] = {};

  // The end of the outermost range of `phase` around the moment (0 when none).
  int64_t EndOf(TrainingPhase phase) const { return end[phase]; }
};

// The ranges of chosen tracks, by start, with the phase of each name read once.
class TrainingPhases {
 public:
  // `tracks`: 1 for each track to index. Step ranges are not operators and are passed over.
  TrainingPhases(const model::Model& model, const std::vector<uint8_t>& tracks,
                 const std::vector<StepSpan>& steps);

  PhasesAt At(uint32_t track, int64_t ts);

 private:
  // The slice around a moment on a track: the last one started by then, up its parent chain.
  uint32_t Innermost(uint32_t track, int64_t ts) const;

  using RowIsItem = uint32_t (*)(uint32_t);
  const model::Model& model_;
  SlicesByStart<RowIsItem> by_start_;
  std::unordered_set<uint32_t> step_slices_;
  std::vector<int16_t> phase_of_name_;  // by StringId; -1 until read
};

}  // namespace aiprof::analysis
