#include "analysis/step_breakdown.h"

#include <gtest/gtest.h>

#include "analysis/analysis_set.h"
#include "analysis/hand_built_model.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// CPU-only: steps [0,35) and [35,60); framework ops [0,15) (two, partial), [20,30);
// gloo all_reduce [12,22) and [40,50); gloo recv [44,48) (inside the second collective).
HandBuiltModel CpuOnlyStepsModel() {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t worker = b.AddThread(0, 101);
  b.AddStep(main, 1, 0, 35);
  b.AddStep(main, 2, 35, 60);
  b.AddSlice(main, 0, 10, "aten::mm", "cpu_op");
  b.AddSlice(main, 5, 15, "aten::add", "cpu_op");
  b.AddSlice(main, 20, 30, "aten::linear", "cpu_op");
  b.AddSlice(worker, 12, 22, "gloo:all_reduce", "cpu_op");
  b.AddSlice(worker, 40, 50, "gloo:all_reduce", "cpu_op");
  b.AddSlice(worker, 44, 48, "gloo:recv", "cpu_op");
  return b;
}

TEST(StepBreakdown, CpuOnlyEveryColumn) {
  HandBuiltModel b = CpuOnlyStepsModel();
  AnalysisSet set = RunAnalyses(b.model());
  const StepBreakdownResult& r = set.step_breakdown;
  EXPECT_EQ(r.step_source, StepSource::kStepRecords);
  ASSERT_EQ(r.rows.size(), 2u);
  const StepBreakdownRow& s1 = r.rows[0];
  EXPECT_EQ(s1.step, 1u);
  EXPECT_EQ(s1.begin_ns, 0);
  EXPECT_EQ(s1.end_ns, 35);
  EXPECT_EQ(s1.computing_ns, 25);
  EXPECT_EQ(s1.communication_ns, 10);
  EXPECT_EQ(s1.communication_not_overlapped_ns, 5);  // [15,20)
  EXPECT_EQ(s1.overlapped_ns(), 5);
  EXPECT_EQ(s1.free_ns, 5);  // [30,35)
  EXPECT_EQ(s1.bubble_ns, 0);
  EXPECT_EQ(s1.stage_ns(), 35);
  EXPECT_EQ(s1.communication_not_overlapped_exclude_receive_ns(), 5);
  EXPECT_EQ(s1.preparing_ns, 0);
  EXPECT_TRUE(s1.has_tasks);

  const StepBreakdownRow& s2 = r.rows[1];
  EXPECT_EQ(s2.step, 2u);
  EXPECT_EQ(s2.begin_ns, 35);
  EXPECT_EQ(s2.end_ns, 60);
  EXPECT_EQ(s2.computing_ns, 0);
  EXPECT_EQ(s2.communication_ns, 10);  // the recv lies inside the all_reduce
  EXPECT_EQ(s2.communication_not_overlapped_ns, 10);
  EXPECT_EQ(s2.overlapped_ns(), 0);
  // [35,40) and [50,60): the window less its tasks, though the overlap's Free lane ends with
  // the last task (50); the parts add up to the window.
  EXPECT_EQ(s2.free_ns, 15);
  EXPECT_EQ(s2.bubble_ns, 4);
  EXPECT_EQ(s2.stage_ns(), 0 + 10 + 15 - 4);
  EXPECT_EQ(s2.computing_ns + s2.communication_not_overlapped_ns + s2.free_ns,
            s2.end_ns - s2.begin_ns);
  EXPECT_EQ(s2.communication_not_overlapped_exclude_receive_ns(), 6);
  EXPECT_EQ(s2.preparing_ns, 5);  // first task at 40
}

TEST(StepBreakdown, CudaWindowsStretchToDeviceWorkOfTheStep) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, /*device_id=*/0);
  b.AddStep(host, 1, 0, 10);
  b.AddStep(host, 2, 20, 30);
  b.AddSlice(stream, 5, 18, "sgemm", "kernel");  // launched in step 1, ends after it
  b.AddSlice(stream, 22, 26, "sgemm", "kernel");
  b.AddSlice(stream, 24, 40, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel");
  AnalysisSet set = RunAnalyses(b.model());
  const std::vector<StepBreakdownRow>& rows = set.step_breakdown.rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].device_id, 0);
  EXPECT_EQ(rows[0].end_ns, 18);
  EXPECT_EQ(rows[0].computing_ns, 13);
  EXPECT_EQ(rows[0].free_ns, 5);  // [0,5), before the run's first task: Preparing is in Free
  EXPECT_EQ(rows[0].preparing_ns, 5);
  EXPECT_EQ(rows[1].begin_ns, 20);
  EXPECT_EQ(rows[1].host_end_ns, 30);
  EXPECT_EQ(rows[1].end_ns, 40);
  EXPECT_EQ(rows[1].computing_ns, 4);
  EXPECT_EQ(rows[1].communication_ns, 16);
  EXPECT_EQ(rows[1].communication_not_overlapped_ns, 14);
  EXPECT_EQ(rows[1].overlapped_ns(), 2);
  EXPECT_EQ(rows[1].free_ns, 2);  // [20,22): the gap [18,20) lies between the windows
  EXPECT_EQ(rows[1].preparing_ns, 2);
  EXPECT_EQ(rows[1].stage_ns(), 4 + 14 + 2);
}

TEST(StepBreakdown, NextStepBoundsTheWindow) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, 0);
  b.AddStep(host, 1, 0, 10);
  b.AddStep(host, 2, 12, 20);
  b.AddSlice(stream, 8, 15, "sgemm", "kernel");
  AnalysisSet set = RunAnalyses(b.model());
  const std::vector<StepBreakdownRow>& rows = set.step_breakdown.rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].end_ns, 12);
  EXPECT_EQ(rows[0].computing_ns, 4);
  EXPECT_EQ(rows[1].computing_ns, 3);
  EXPECT_EQ(rows[1].preparing_ns, 0);  // the kernel was already running
  EXPECT_EQ(rows[1].end_ns, 20);
}

TEST(StepBreakdown, WithoutStepsOneRowPerScope) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddSlice(main, 100, 150, "aten::mm", "cpu_op");
  b.AddSlice(main, 170, 200, "aten::mm", "cpu_op");
  AnalysisSet set = RunAnalyses(b.model());
  EXPECT_EQ(set.step_breakdown.step_source, StepSource::kNone);
  ASSERT_EQ(set.step_breakdown.rows.size(), 1u);
  EXPECT_EQ(set.step_breakdown.rows[0].begin_ns, 100);
  EXPECT_EQ(set.step_breakdown.rows[0].end_ns, 200);
  EXPECT_EQ(set.step_breakdown.rows[0].computing_ns, 80);
  EXPECT_EQ(set.step_breakdown.rows[0].free_ns, 20);
}

TEST(StepBreakdown, MarkerStepRangesAndIterationSelection) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddMarkerRange(main, 0, 100, "step 1");
  b.AddMarkerRange(main, 100, 200, "Step#2");
  b.AddMarkerRange(main, 200, 300, "iteration_3");
  b.AddMarkerRange(main, 10, 30, "forward");
  b.AddMarkerRange(main, 40, 90, "backward");
  b.AddMarkerRange(main, 120, 150, "forward");
  b.AddMarkerRange(main, 220, 280, "forward");
  AnalysisSet all = RunAnalyses(b.model());
  EXPECT_EQ(all.inputs.step_source, StepSource::kMarkerRanges);
  EXPECT_EQ(all.inputs.steps, 3u);
  ASSERT_EQ(all.step_breakdown.trace.size(), 3u);
  const StepTraceRow& t1 = all.step_breakdown.trace[0];
  EXPECT_EQ(t1.fp_start_ns, 10);
  EXPECT_EQ(t1.bp_end_ns, 90);
  EXPECT_EQ(t1.fp_to_bp_ns(), 80);
  EXPECT_EQ(t1.refresh_ns(), 10);
  EXPECT_FALSE(t1.has_data_aug_bound);
  EXPECT_EQ(all.step_breakdown.trace[1].data_aug_bound_ns, 120 - 100);

  AnalysisSet chosen = RunAnalyses(b.model(), AnalysisOptions{model::StepRange{2, 2}});
  ASSERT_EQ(chosen.step_breakdown.rows.size(), 1u);
  EXPECT_EQ(chosen.step_breakdown.rows[0].step, 2u);
  EXPECT_EQ(chosen.step_breakdown.rows[0].computing_ns, 30);
  EXPECT_EQ(chosen.step_breakdown.rows[0].preparing_ns, 20);
}

}  // namespace
}  // namespace aiprof::analysis
