#include "analysis/data_preparation.h"

#include <gtest/gtest.h>

#include "analysis/analysis_set.h"
#include "analysis/hand_built_model.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// Steps [0,100) [100,200) [200,300) on the main thread; a loader thread makes batches.
//   step 1: data_wait [0,30); a batch finishes at 25, inside the wait → queue was empty;
//   step 2: enumerate(DataLoader) [100,110) with a nested data_wait [102,108) (counted once);
//           the batch finishing at 180 comes after the wait → queue was not empty;
//   step 3: two waits [200,205) and [250,260); a batch finishes at 255 → empty.
// Each step names the wait range that covers most of its wait: the one a link on the
// Overview opens on the timeline.
TEST(DataPreparation, EachStepNamesItsLongestWaitRange) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddStep(main, 1, 0, 100);
  b.AddStep(main, 2, 100, 200);
  b.AddStep(main, 3, 200, 300);
  b.AddStep(main, 4, 300, 400);
  const uint32_t first = b.AddMarkerRange(main, 0, 30, "data_wait");
  const uint32_t fetch = b.AddSlice(
      main, 100, 110, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "cpu_op");
  b.AddMarkerRange(main, 102, 108, "data_wait");  // nested, shorter
  b.AddMarkerRange(main, 200, 205, "data_wait");
  const uint32_t later = b.AddMarkerRange(main, 250, 260, "data_wait");
  // A range across steps 3 and 4: 10 ns in step 3 (as long as `later`, which comes first
  // and stays), 40 in step 4.
  const uint32_t across = b.AddMarkerRange(main, 290, 340, "data_wait");
  const DataPreparationResult r = RunAnalyses(b.model()).data_preparation;
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_EQ(r.steps[0].longest_wait_slice, first);
  EXPECT_EQ(r.steps[1].longest_wait_slice, fetch);
  EXPECT_EQ(r.steps[2].longest_wait_slice, later);
  EXPECT_EQ(r.steps[3].longest_wait_slice, across);
}

TEST(DataPreparation, AStepWithoutWaitNamesNoRange) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddStep(main, 1, 0, 100);
  b.AddMarkerRange(main, 150, 160, "data_wait");  // outside every step
  const DataPreparationResult r = RunAnalyses(b.model()).data_preparation;
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].longest_wait_slice, model::kNoRow);
}

TEST(DataPreparation, WaitsSharesAndQueueView) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t loader = b.AddThread(0, 101);
  b.AddStep(main, 1, 0, 100);
  b.AddStep(main, 2, 100, 200);
  b.AddStep(main, 3, 200, 300);
  b.AddMarkerRange(main, 0, 30, "data_wait");
  b.AddSlice(main, 100, 110, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             "user_annotation");
  b.AddMarkerRange(main, 102, 108, "data_wait");
  b.AddSlice(main, 110, 190, "aten::mm", "cpu_op");
  b.AddMarkerRange(main, 200, 205, "DATA_WAIT");
  b.AddMarkerRange(main, 250, 260, "data_wait");
  b.AddMarkerRange(loader, 0, 25, "load_batch");
  b.AddMarkerRange(loader, 150, 180, "load_batch");
  b.AddMarkerRange(loader, 240, 255, "load_batch");

  AnalysisSet set = RunAnalyses(b.model());
  const DataPreparationResult& r = set.data_preparation;
  EXPECT_EQ(r.inputs,
            (std::vector<std::string>{"DataLoader operators", "wait ranges", "loader ranges"}));
  EXPECT_TRUE(r.has_queue_view);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].step, 1u);
  EXPECT_EQ(r.steps[0].wait_ns, 30);
  EXPECT_EQ(r.steps[0].waits, 1u);
  EXPECT_EQ(r.steps[0].loader_busy_ns, 25);
  EXPECT_TRUE(r.steps[0].queue_empty);
  EXPECT_DOUBLE_EQ(r.steps[0].wait_share(), 0.3);
  EXPECT_EQ(r.steps[1].wait_ns, 10);
  EXPECT_EQ(r.steps[1].waits, 1u);
  EXPECT_EQ(r.steps[1].loader_busy_ns, 30);
  EXPECT_FALSE(r.steps[1].queue_empty);
  EXPECT_DOUBLE_EQ(r.steps[1].wait_share(), 0.1);
  EXPECT_EQ(r.steps[2].wait_ns, 15);
  EXPECT_EQ(r.steps[2].waits, 2u);
  EXPECT_EQ(r.steps[2].loader_busy_ns, 15);
  EXPECT_TRUE(r.steps[2].queue_empty);
  EXPECT_EQ(r.total_wait_ns, 55);
  EXPECT_EQ(r.total_step_ns, 300);
  EXPECT_EQ(r.empty_queue_steps, 2u);
  EXPECT_DOUBLE_EQ(r.wait_share(), 55.0 / 300.0);
}

// A wait range that starts before the step is clipped to it; one on a thread without
// steps is a loader, not a wait.
TEST(DataPreparation, ClipsToTheStepAndComputeOnlyHasNoWait) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddStep(main, 1, 10, 50);
  b.AddMarkerRange(main, 0, 20, "load_batch");
  b.AddSlice(main, 20, 50, "aten::mm", "cpu_op");
  AnalysisSet set = RunAnalyses(b.model());
  ASSERT_EQ(set.data_preparation.steps.size(), 1u);
  EXPECT_EQ(set.data_preparation.steps[0].wait_ns, 10);
  EXPECT_FALSE(set.data_preparation.has_queue_view);
  EXPECT_FALSE(set.data_preparation.steps[0].queue_empty);

  HandBuiltModel compute;
  uint32_t thread = compute.AddProcess(200);
  compute.AddStep(thread, 1, 0, 100);
  compute.AddSlice(thread, 0, 90, "aten::mm", "cpu_op");
  AnalysisSet only = RunAnalyses(compute.model());
  EXPECT_TRUE(only.data_preparation.inputs.empty());
  ASSERT_EQ(only.data_preparation.steps.size(), 1u);
  EXPECT_EQ(only.data_preparation.total_wait_ns, 0);
  EXPECT_DOUBLE_EQ(only.data_preparation.wait_share(), 0.0);
}

}  // namespace
}  // namespace aiprof::analysis
