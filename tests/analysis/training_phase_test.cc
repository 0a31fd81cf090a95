#include "analysis/training_phase.h"

#include <gtest/gtest.h>

#include "analysis/hand_built_model.h"
#include "model/nesting.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

TEST(TrainingPhase, RangesNameTheirPhaseWhateverTheirCase) {
  EXPECT_EQ(PhaseOfRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
            kInputPhase);
  EXPECT_EQ(PhaseOfRange("Optimizer.step#SGD.step"), kOptimizerPhase);
  EXPECT_EQ(PhaseOfRange("BACKWARD pass"), kBackwardPhase);
  EXPECT_EQ(PhaseOfRange("autograd::engine::evaluate_function: MmBackward0"), kBackwardPhase);
  EXPECT_EQ(PhaseOfRange("Model.Forward"), kForwardPhase);
  EXPECT_EQ(PhaseOfRange("aten::mm"), 0);
}

//   ProfilerStep#1 [100, 300]   (a step: passed over)
//     forward      [100, 140]
//       aten::linear [105, 120]
//     backward     [150, 250]
//       backward_hook [160, 200]   (a second, inner backward range)
//         aten::mm   [170, 180]
class TrainingPhasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    main_ = b_.AddProcess(100);
    b_.AddStep(main_, 1, 100, 300);
    b_.AddMarkerRange(main_, 100, 140, "forward");
    linear_ = b_.AddSlice(main_, 105, 120, "aten::linear", "cpu_op");
    b_.AddMarkerRange(main_, 150, 250, "backward");
    b_.AddSlice(main_, 160, 200, "backward_hook", "user_annotation");
    mm_ = b_.AddSlice(main_, 170, 180, "aten::mm", "cpu_op");
    model::ResolveNesting(b_.mutable_model());
  }
  HandBuiltModel b_;
  uint32_t main_ = 0, linear_ = 0, mm_ = 0;
};

TEST_F(TrainingPhasesTest, AMomentHasItsInnermostSliceAndThePhasesAroundIt) {
  const model::Model& model = b_.model();
  StepList steps = StepsOf(model);
  TrainingPhases phases(model, std::vector<uint8_t>(model.tracks.size(), 1), steps.steps);

  const PhasesAt in_linear = phases.At(main_, 110);
  EXPECT_EQ(in_linear.innermost, linear_);
  EXPECT_EQ(in_linear.phases, kForwardPhase);
  EXPECT_EQ(in_linear.EndOf(kForwardPhase), 140);

  const PhasesAt in_mm = phases.At(main_, 175);
  EXPECT_EQ(in_mm.innermost, mm_);
  EXPECT_EQ(in_mm.phases, kBackwardPhase);
  EXPECT_EQ(in_mm.EndOf(kBackwardPhase), 250) << "the outermost backward range's end";
}

TEST_F(TrainingPhasesTest, TheStepItselfIsNoSliceAroundAMoment) {
  const model::Model& model = b_.model();
  StepList steps = StepsOf(model);
  TrainingPhases phases(model, std::vector<uint8_t>(model.tracks.size(), 1), steps.steps);
  const PhasesAt between = phases.At(main_, 145);
  EXPECT_EQ(between.innermost, model::kNoRow);
  EXPECT_EQ(between.phases, 0);
}

TEST_F(TrainingPhasesTest, TracksNotChosenHaveNoSlices) {
  const model::Model& model = b_.model();
  StepList steps = StepsOf(model);
  TrainingPhases phases(model, std::vector<uint8_t>(model.tracks.size(), 0), steps.steps);
  EXPECT_EQ(phases.At(main_, 110).innermost, model::kNoRow);
}

}  // namespace
}  // namespace aiprof::analysis
