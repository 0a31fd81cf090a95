#include "analysis/overlap.h"

#include <gtest/gtest.h>

#include <map>

#include "analysis/analysis_set.h"
#include "analysis/compute_kinds.h"
#include "analysis/hand_built_model.h"
#include "analysis/input_wait.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;
using Lanes = std::map<OverlapLane, std::vector<Interval>>;

Lanes LanesOf(const OverlapScope& scope) {
  Lanes lanes;
  ForEachLaneInterval(scope, [&](OverlapLane lane, Interval i) { lanes[lane].push_back(i); });
  return lanes;
}

// CPU-only: framework operators partial [0,10)+[5,15), disjoint [20,30) with nested
// [22,25); gloo collectives [12,22) (partly under compute) and [40,50) (alone).
HandBuiltModel CpuOnlyModel() {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t worker = b.AddThread(0, 101);
  b.AddSlice(main, 0, 10, "aten::mm", "cpu_op");
  b.AddSlice(main, 5, 15, "aten::add", "cpu_op");
  b.AddSlice(main, 20, 30, "aten::linear", "cpu_op");
  b.AddSlice(main, 22, 25, "aten::addmm", "cpu_op");
  b.AddSlice(worker, 12, 22, "gloo:all_reduce", "cpu_op");
  b.AddSlice(worker, 40, 50, "gloo:all_reduce", "cpu_op");
  b.AddSlice(main, 0, 50, "python_function", "python_function");  // not compute
  return b;
}

TEST(Overlap, CpuOnlyLanesFromFrameworkOperatorsAndCollectives) {
  HandBuiltModel b = CpuOnlyModel();
  AnalysisSet set = RunAnalyses(b.model());
  ASSERT_FALSE(set.overlap.device_run);
  ASSERT_EQ(set.overlap.scopes.size(), 1u);
  const OverlapScope& scope = set.overlap.scopes[0];
  EXPECT_EQ(scope.compute_input, ComputeInput::kFrameworkOps);
  EXPECT_EQ(scope.compute_tasks, 4u);
  EXPECT_EQ(scope.communication_ops, 2u);
  EXPECT_EQ(scope.first_ns, 0);
  EXPECT_EQ(scope.last_ns, 50);
  Lanes lanes = LanesOf(scope);
  EXPECT_EQ(lanes[OverlapLane::kComputing], (std::vector<Interval>{{0, 15}, {20, 30}}));
  EXPECT_EQ(lanes[OverlapLane::kCommunication], (std::vector<Interval>{{12, 22}, {40, 50}}));
  EXPECT_EQ(lanes[OverlapLane::kCommunicationNotOverlapped],
            (std::vector<Interval>{{15, 20}, {40, 50}}));
  EXPECT_EQ(lanes[OverlapLane::kFree], (std::vector<Interval>{{30, 40}}));
  EXPECT_EQ(set.inputs.compute, ComputeInput::kFrameworkOps);
  EXPECT_FALSE(set.inputs.device_run);
  EXPECT_EQ(set.inputs.communication_ops, 2u);
}

TEST(Overlap, CommunicationSpanningSeveralComputeIntervals) {
  OverlapScope scope;
  scope.computing = {{10, 20}, {30, 40}, {45, 50}};
  scope.communication = {{0, 100}};
  scope.first_ns = 0;
  scope.last_ns = 100;
  Lanes lanes = LanesOf(scope);
  EXPECT_EQ(lanes[OverlapLane::kCommunicationNotOverlapped],
            (std::vector<Interval>{{0, 10}, {20, 30}, {40, 45}, {50, 100}}));
  EXPECT_TRUE(lanes[OverlapLane::kFree].empty());
}

TEST(Overlap, ComputeCoveringSeveralCommunications) {
  OverlapScope scope;
  scope.computing = {{0, 100}};
  scope.communication = {{10, 20}, {90, 110}, {120, 130}};
  scope.first_ns = 0;
  scope.last_ns = 130;
  Lanes lanes = LanesOf(scope);
  EXPECT_EQ(lanes[OverlapLane::kCommunicationNotOverlapped],
            (std::vector<Interval>{{100, 110}, {120, 130}}));
  EXPECT_EQ(lanes[OverlapLane::kFree], (std::vector<Interval>{{110, 120}}));
}

TEST(Overlap, MarkerRangesAreTheComputeWithoutFrameworkOperators) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(7);
  b.AddStep(main, 1, 0, 100);
  b.AddMarkerRange(main, 10, 40, "forward");
  b.AddMarkerRange(main, 50, 80, "backward");
  b.AddMarkerRange(main, 0, 10, "data_wait");
  b.AddMarkerRange(main, 40, 50, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  AnalysisSet set = RunAnalyses(b.model());
  ASSERT_EQ(set.overlap.scopes.size(), 1u);
  EXPECT_EQ(set.overlap.scopes[0].compute_input, ComputeInput::kMarkerRanges);
  // Neither the step's own range nor the input waits are compute.
  EXPECT_EQ(set.overlap.scopes[0].computing, (std::vector<Interval>{{10, 40}, {50, 80}}));
}

TEST(Overlap, CudaRunUsesDeviceTasksAndNcclKernels) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, /*device_id=*/0);
  b.AddSlice(host, 0, 100, "aten::mm", "cpu_op");  // host work is not device compute
  b.AddSlice(stream, 10, 20, "sgemm", "kernel");
  b.AddSlice(stream, 20, 25, "Memcpy HtoD", "gpu_memcpy");
  b.AddSlice(stream, 40, 45, "Memset", "gpu_memset");
  b.AddSlice(stream, 15, 60, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel");
  AnalysisSet set = RunAnalyses(b.model());
  ASSERT_TRUE(set.overlap.device_run);
  ASSERT_EQ(set.overlap.scopes.size(), 1u);
  const OverlapScope& scope = set.overlap.scopes[0];
  EXPECT_EQ(scope.device_id, 0);
  EXPECT_EQ(scope.compute_input, ComputeInput::kDeviceTasks);
  EXPECT_EQ(scope.compute_tasks, 3u);
  Lanes lanes = LanesOf(scope);
  EXPECT_EQ(lanes[OverlapLane::kComputing], (std::vector<Interval>{{10, 25}, {40, 45}}));
  EXPECT_EQ(lanes[OverlapLane::kCommunication], (std::vector<Interval>{{15, 60}}));
  EXPECT_EQ(lanes[OverlapLane::kCommunicationNotOverlapped],
            (std::vector<Interval>{{25, 40}, {45, 60}}));
  EXPECT_TRUE(lanes[OverlapLane::kFree].empty());
  EXPECT_EQ(set.inputs.devices, 1u);
}

// The classification held 2 bits a slice (compute_kinds.h: the critical path's run index) is
// the overlap's byte a slice, slice for slice: framework operators, one inside an input wait,
// the profiler's own, marker ranges, a step, collectives, device tasks.
TEST(Overlap, PackedClassificationIsTheBytesOne) {
  std::vector<HandBuiltModel> models;
  models.push_back(CpuOnlyModel());
  models.emplace_back();
  {
    HandBuiltModel& b = models.back();
    uint32_t main = b.AddProcess(7);
    b.AddStep(main, 1, 0, 100);
    b.AddMarkerRange(main, 10, 40, "forward");
    b.AddMarkerRange(main, 0, 10, "data_wait");
    b.AddSlice(main, 40, 50, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
               "cpu_op");
    b.AddSlice(main, 42, 48, "aten::stack", "cpu_op");  // inside the wait: not compute
    b.AddSlice(main, 60, 70, "profiler::_record_function_enter_new", "cpu_op");
    b.AddSlice(main, 70, 80, "aten::mm", "cpu_op");
  }
  models.emplace_back();
  {
    HandBuiltModel& b = models.back();
    uint32_t host = b.AddProcess(100);
    uint32_t stream = b.AddProcess(0, /*device_id=*/0);
    b.AddSlice(host, 0, 100, "aten::mm", "cpu_op");
    b.AddSlice(stream, 10, 20, "sgemm", "kernel");
    b.AddSlice(stream, 15, 60, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel");
  }
  for (HandBuiltModel& b : models) {
    const model::Model& m = b.model();
    const AnalysisSet set = RunAnalyses(m);
    const ComputeClassification bytes = ClassifyComputeSlices(m, set.communication.ops);
    const PackedComputeClassification packed =
        ClassifyComputeSlicesPacked(m, set.communication.ops);
    EXPECT_EQ(packed.device_run, bytes.device_run);
    ASSERT_EQ(packed.kind.size(), bytes.kind.size());
    std::map<uint8_t, int> kinds;
    for (uint32_t row = 0; row < m.slices.size(); ++row) {
      EXPECT_EQ(packed.kind.Get(row), bytes.kind[row]) << row;
      ++kinds[bytes.kind[row]];
    }
    EXPECT_GE(kinds.size(), 2u);  // more than one kind in each model
  }
}

TEST(Overlap, InputWaitNames) {
  EXPECT_TRUE(IsInputWaitName("data_wait"));
  EXPECT_TRUE(IsInputWaitName("Load_Batch"));
  EXPECT_TRUE(IsInputWaitName("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
  EXPECT_TRUE(IsInputWaitName("GetNext"));
  EXPECT_FALSE(IsInputWaitName("forward"));
  EXPECT_FALSE(IsInputWaitName("aten::data"));
}

}  // namespace
}  // namespace aiprof::analysis
