// The step model (model/steps.h): sources and their precedence, loops, Optimizer.step
// boundaries, --iteration-id parsing and selection, and the filter keeping the selection.
#include "model/steps.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/hand_built_model.h"
#include "model/filter.h"

namespace aiprof::model {
namespace {

using analysis::testing::HandBuiltModel;

TEST(Steps, ParsesStepNames) {
  uint64_t n = 0;
  EXPECT_TRUE(ParseProfilerStepName("ProfilerStep#12", &n));
  EXPECT_EQ(n, 12u);
  EXPECT_FALSE(ParseProfilerStepName("ProfilerStep#", &n));
  EXPECT_TRUE(ParseMarkerStepName("STEP-7", &n));
  EXPECT_EQ(n, 7u);
  EXPECT_FALSE(ParseMarkerStepName("stepper 7", &n));
  EXPECT_FALSE(ParseMarkerStepName("step 7a", &n));
  EXPECT_TRUE(IsOptimizerStepName("Optimizer.step#SGD.step"));
  EXPECT_TRUE(IsOptimizerStepName("Optimizer.step"));
  EXPECT_FALSE(IsOptimizerStepName("Optimizer.zero_grad#SGD.zero_grad"));
  EXPECT_FALSE(IsOptimizerStepName("Optimizer.stepper"));
}

TEST(Steps, EachProcessTakesItsFirstSourceInPrecedence) {
  HandBuiltModel b;
  const uint32_t records = b.AddProcess(100);
  b.AddStep(records, 1, 0, 10);
  b.AddSlice(records, 20, 30, "ProfilerStep#7", "user_annotation");  // lower precedence
  const uint32_t torch = b.AddProcess(200);
  b.AddSlice(torch, 0, 10, "ProfilerStep#0", "user_annotation");
  b.AddMarkerRange(torch, 10, 20, "step 5");  // lower precedence
  const uint32_t markers = b.AddProcess(300);
  b.AddMarkerRange(markers, 0, 10, "iteration_3");
  b.AddSlice(markers, 1, 2, "Optimizer.step#SGD.step", "user_annotation");  // lowest
  const uint32_t worker = b.AddProcess(400);                                  // no steps
  b.AddSlice(worker, 0, 10, "aten::randn", "cpu_op");

  const Model& m = b.model();
  ASSERT_EQ(m.steps.size(), 3u);
  ASSERT_EQ(m.step_loops.size(), 3u);
  EXPECT_EQ(m.step_loops.source[0], StepSource::kStepRecords);
  EXPECT_EQ(m.steps.step[0], 1u);
  EXPECT_EQ(m.step_loops.source[1], StepSource::kProfilerStepRanges);
  EXPECT_EQ(m.steps.step[1], 0u);
  EXPECT_EQ(m.step_loops.source[2], StepSource::kMarkerRanges);
  EXPECT_EQ(m.steps.step[2], 3u);
  EXPECT_EQ(RunStepSource(m), StepSource::kStepRecords);
  EXPECT_FALSE(HasSeveralLoops(m));
  EXPECT_EQ(StepLabel(m, 2), "3");
}

TEST(Steps, NumbersStartingAgainMakeASecondLoop) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  for (uint64_t i = 0; i < 3; ++i) {
    b.AddSlice(main, 10 * i, 10 * i + 10, "ProfilerStep#" + std::to_string(i), "user_annotation");
  }
  for (uint64_t i = 0; i < 2; ++i) {
    b.AddSlice(main, 100 + 10 * i, 110 + 10 * i, "ProfilerStep#" + std::to_string(i),
               "user_annotation");
  }
  const Model& m = b.model();
  ASSERT_EQ(m.steps.size(), 5u);
  ASSERT_EQ(m.step_loops.size(), 2u);
  EXPECT_EQ(m.step_loops.ordinal[0], 0u);
  EXPECT_EQ(m.step_loops.count[0], 3u);
  EXPECT_EQ(m.step_loops.ordinal[1], 1u);
  EXPECT_EQ(m.step_loops.first[1], 3u);
  EXPECT_TRUE(HasSeveralLoops(m));
  EXPECT_EQ(StepLabel(m, 1), "0:1");
  EXPECT_EQ(StepLabel(m, 4), "1:1");

  StepRange range;
  std::string error;
  ASSERT_TRUE(ParseStepRange("1", &range, &error));
  std::vector<uint32_t> rows;
  EXPECT_FALSE(SelectSteps(m, range, &rows, &error));
  EXPECT_NE(error.find("several training loops"), std::string::npos) << error;
  EXPECT_NE(error.find("--iteration-id=1:1"), std::string::npos) << error;
  ASSERT_TRUE(ParseStepRange("1:0-1", &range, &error));
  ASSERT_TRUE(SelectSteps(m, range, &rows, &error)) << error;
  EXPECT_EQ(rows, (std::vector<uint32_t>{3, 4}));
  ASSERT_TRUE(ParseStepRange("2", &range, &error));  // only loop 0 has a step 2
  ASSERT_TRUE(SelectSteps(m, range, &rows, &error)) << error;
  EXPECT_EQ(rows, (std::vector<uint32_t>{2}));
  ASSERT_TRUE(ParseStepRange("9", &range, &error));
  EXPECT_FALSE(SelectSteps(m, range, &rows, &error));
  EXPECT_NE(error.find("loop 0 (steps 0-2"), std::string::npos) << error;
  EXPECT_NE(error.find("loop 1 (steps 0-1"), std::string::npos) << error;

  Model filtered;
  ASSERT_TRUE(ParseStepRange("1:1", &range, &error));
  ASSERT_TRUE(FilterToSteps(m, range, &filtered, &error)) << error;
  ASSERT_EQ(filtered.steps.size(), 1u);
  EXPECT_EQ(filtered.steps.step[0], 1u);
  EXPECT_EQ(filtered.step_loops.ordinal[filtered.steps.loop[0]], 1u);
  EXPECT_EQ(filtered.start_ns, 110);
  EXPECT_EQ(filtered.end_ns, 120);
  // The filtered model answers the same selection the same way (analyses select again).
  ASSERT_TRUE(SelectSteps(filtered, range, &rows, &error)) << error;
}

TEST(Steps, RanksNumberingAlikeAreNoAmbiguity) {
  HandBuiltModel b;
  for (uint32_t pid : {100u, 200u}) {
    const uint32_t thread = b.AddProcess(pid);
    for (uint64_t i = 0; i < 2; ++i) b.AddStep(thread, i, 10 * i, 10 * i + 10);
  }
  const Model& m = b.model();
  StepRange range;
  std::string error;
  ASSERT_TRUE(ParseStepRange("1", &range, &error));
  std::vector<uint32_t> rows;
  ASSERT_TRUE(SelectSteps(m, range, &rows, &error)) << error;
  EXPECT_EQ(rows.size(), 2u);
}

TEST(Steps, OptimizerStepsBoundTheSteps) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  b.AddSlice(main, 0, 5, "aten::empty", "cpu_op");  // model set-up before the loop
  b.AddSlice(main, 10, 20, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             "user_annotation");
  b.AddSlice(main, 40, 50, "Optimizer.step#SGD.step", "user_annotation");
  b.AddSlice(main, 55, 60, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             "user_annotation");
  b.AddSlice(main, 80, 95, "Optimizer.step#SGD.step", "user_annotation");
  b.AddSlice(main, 130, 140, "Optimizer.step#SGD.step", "user_annotation");
  const Model& m = b.model();
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(RunStepSource(m), StepSource::kOptimizerSteps);
  // Step 0 from the first DataLoader fetch, each next one from the previous step's end.
  EXPECT_EQ(m.steps.ts[0], 10);
  EXPECT_EQ(m.steps.end[0], 50);
  EXPECT_EQ(m.steps.ts[1], 50);
  EXPECT_EQ(m.steps.end[1], 95);
  EXPECT_EQ(m.steps.ts[2], 95);
  EXPECT_EQ(m.steps.end[2], 140);
  EXPECT_EQ(m.steps.step[2], 2u);
  EXPECT_EQ(m.steps.slice[0], kNoRow);

  HandBuiltModel no_loader;
  const uint32_t thread = no_loader.AddProcess(100);
  no_loader.AddSlice(thread, 3, 5, "aten::empty", "cpu_op");
  no_loader.AddSlice(thread, 40, 50, "Optimizer.step", "user_annotation");
  EXPECT_EQ(no_loader.model().steps.ts[0], 3);  // the thread's first top-level slice
}

TEST(Steps, ParsesIterationIds) {
  StepRange range;
  std::string error;
  ASSERT_TRUE(ParseStepRange("3", &range, &error));
  EXPECT_EQ(range.first, 3u);
  EXPECT_EQ(range.last, 3u);
  EXPECT_FALSE(range.has_loop);
  ASSERT_TRUE(ParseStepRange("2-5", &range, &error));
  EXPECT_EQ(range.last, 5u);
  ASSERT_TRUE(ParseStepRange("1:2-5", &range, &error));
  EXPECT_TRUE(range.has_loop);
  EXPECT_EQ(range.loop, 1u);
  EXPECT_EQ(range.first, 2u);
  for (const char* bad : {"", "5-2", "a", "1:", ":3", "1:2:3", "-3", "3-"}) {
    EXPECT_FALSE(ParseStepRange(bad, &range, &error)) << bad;
    EXPECT_NE(error.find("expected a step number"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace aiprof::model
