#include "analysis/kernel_breakdown.h"

#include <gtest/gtest.h>

#include "analysis/analysis_set.h"
#include "analysis/hand_built_model.h"
#include "analysis/idle_time.h"
#include "model/nesting.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// A CUDA-shaped run built by hand (there is no GPU here): GPU 0 with streams 7 and 8, and
// the host thread's launch calls linked to what they launched ("ac2g" flows).
//   stream 7: gemm [100,200) ← cudaLaunchKernel [90,95)
//             relu [210,213) ← cudaLaunchKernel [150,155)   (launched before gemm ended)
//             gemm [300,400) ← cudaLaunchKernel [260,265)   (launched after relu ended)
//             Memcpy HtoD [500,520) ← cudaMemcpyAsync [300,320)
//   stream 8: ncclKernel_AllReduce [150,350) ← cudaLaunchKernel [120,125)
struct CudaRun {
  HandBuiltModel b;
  uint32_t stream7 = 0, stream8 = 0;
};

CudaRun CudaShapedRun() {
  CudaRun run;
  HandBuiltModel& b = run.b;
  uint32_t host = b.AddProcess(100);
  run.stream7 = b.AddProcess(0, 0);
  run.stream8 = b.AddThread(1, 8);
  model::Model& m = b.mutable_model();
  const model::StringId ac2g = m.strings.Intern("ac2g");
  auto launch = [&](int64_t call_ts, int64_t call_end, std::string_view call, uint32_t stream,
                    int64_t ts, int64_t end, std::string_view name, std::string_view category) {
    uint32_t from = b.AddSlice(host, call_ts, call_end, call, "cuda_runtime");
    uint32_t to = b.AddSlice(stream, ts, end, name, category);
    m.flows.id.push_back(m.flows.size() + 1);
    m.flows.from_slice.push_back(from);
    m.flows.to_slice.push_back(to);
    m.flows.category.push_back(ac2g);
  };
  launch(90, 95, "cudaLaunchKernel", run.stream7, 100, 200, "gemm", "kernel");
  launch(120, 125, "cudaLaunchKernel", run.stream8, 150, 350,
         "ncclKernel_AllReduce_RING_LL_Sum_float", "kernel");
  launch(150, 155, "cudaLaunchKernel", run.stream7, 210, 213, "relu", "kernel");
  launch(260, 265, "cudaLaunchKernel", run.stream7, 300, 400, "gemm", "kernel");
  launch(300, 320, "cudaMemcpyAsync", run.stream7, 500, 520, "Memcpy HtoD (Pageable -> Device)",
         "gpu_memcpy");
  return run;
}

TEST(KernelBreakdown, TemporalAndTypeTime) {
  CudaRun run = CudaShapedRun();
  AnalysisSet set = RunAnalyses(run.b.model());
  const KernelBreakdownResult& r = set.kernel_breakdown;
  EXPECT_EQ(r.source, ActivitySource::kDevice);
  ASSERT_EQ(r.temporal.size(), 1u);
  EXPECT_EQ(r.temporal[0].process, 1u);
  EXPECT_EQ(r.temporal[0].span_ns, 420);         // [100,520)
  EXPECT_EQ(r.temporal[0].idle_ns, 100);         // [400,500)
  EXPECT_EQ(r.temporal[0].compute_ns, 203);      // gemm, relu, gemm
  EXPECT_EQ(r.temporal[0].non_compute_ns, 117);  // nccl outside compute 97 + memcpy 20

  ASSERT_EQ(r.type_time.size(), 4u);
  EXPECT_EQ(r.type_time[0].label, "COMMUNICATION overlapping COMPUTATION");
  EXPECT_EQ(r.type_time[0].time_ns, 103);
  EXPECT_EQ(r.type_time[1].label, "COMPUTATION");
  EXPECT_EQ(r.type_time[1].time_ns, 100);
  EXPECT_EQ(r.type_time[2].label, "COMMUNICATION");
  EXPECT_EQ(r.type_time[2].time_ns, 97);
  EXPECT_EQ(r.type_time[3].label, "MEMORY");
  EXPECT_EQ(r.type_time[3].time_ns, 20);
}

TEST(KernelBreakdown, TopKernelsPerType) {
  CudaRun run = CudaShapedRun();
  AnalysisSet set = RunAnalyses(run.b.model());
  const auto& top = set.kernel_breakdown.top_kernels;
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].type, ActivityType::kComputation);
  EXPECT_EQ(top[0].name, "gemm");
  EXPECT_EQ(top[0].count, 2u);
  EXPECT_EQ(top[0].total_ns, 200);
  EXPECT_EQ(top[0].min_ns, 100);
  EXPECT_EQ(top[0].max_ns, 100);
  EXPECT_DOUBLE_EQ(top[0].mean_ns, 100);
  EXPECT_DOUBLE_EQ(top[0].stddev_ns, 0);
  // gemm already covers 200 of 203 ns (≥ duration_ratio 0.8): relu goes to "others".
  EXPECT_EQ(top[1].name, "others");
  EXPECT_EQ(top[1].count, 1u);
  EXPECT_EQ(top[1].total_ns, 3);
  EXPECT_EQ(top[2].type, ActivityType::kCommunication);
  EXPECT_EQ(top[2].name, "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(top[2].total_ns, 200);
  EXPECT_EQ(top[3].type, ActivityType::kMemory);
  EXPECT_EQ(top[3].total_ns, 20);

  KernelBreakdownOptions all;
  all.duration_ratio = 1.0;
  KernelBreakdownResult every =
      ComputeKernelBreakdown(run.b.model(), SelectActivities(run.b.model()), all);
  ASSERT_GE(every.top_kernels.size(), 2u);
  EXPECT_EQ(every.top_kernels[1].name, "relu");
  EXPECT_DOUBLE_EQ(every.top_kernels[1].mean_ns, 3);
}

TEST(KernelBreakdown, LaunchStatistics) {
  CudaRun run = CudaShapedRun();
  KernelBreakdownOptions options;
  options.runtime_cutoff_ns = 10;
  options.launch_delay_cutoff_ns = 50;
  KernelBreakdownResult r =
      ComputeKernelBreakdown(run.b.model(), SelectActivities(run.b.model()), options);
  ASSERT_TRUE(r.has_launch_flows);
  const LaunchStatistics& l = r.launches;
  EXPECT_EQ(l.launches, 5u);
  EXPECT_EQ(l.short_kernels, 1u);          // relu: 3 ns on the GPU for a 5 ns call
  EXPECT_EQ(l.runtime_outliers, 1u);       // the 20 ns cudaMemcpyAsync
  EXPECT_EQ(l.launch_delay_outliers, 2u);  // 180 and 55 ns
  EXPECT_EQ(l.total_launch_delay_ns, 5 + 25 + 55 + 35 + 180);
  EXPECT_EQ(l.max_launch_delay_ns, 180);
  ASSERT_EQ(l.largest_delays.size(), 2u);
  EXPECT_EQ(l.largest_delays[0].launch_delay_ns, 180);
  EXPECT_EQ(l.largest_delays[0].cpu_duration_ns, 20);
  EXPECT_EQ(l.largest_delays[0].gpu_duration_ns, 20);
  EXPECT_EQ(l.largest_delays[1].launch_delay_ns, 55);
  const model::SliceTable& s = run.b.model().slices;
  for (const LaunchOutlier& o : l.largest_delays) {  // the written starts: the slices'
    EXPECT_EQ(o.launch_start_ns, s.ts[o.launch_slice]);
    EXPECT_EQ(o.kernel_start_ns, s.ts[o.kernel_slice]);
    EXPECT_EQ(o.kernel_start_ns - (o.launch_start_ns + o.cpu_duration_ns), o.launch_delay_ns);
  }
  EXPECT_EQ(l.mean_launch_delay_ns(), (5 + 25 + 55 + 35 + 180) / 5);
}

TEST(IdleTime, HostWaitKernelWaitOther) {
  CudaRun run = CudaShapedRun();
  AnalysisSet set = RunAnalyses(run.b.model());
  const IdleTimeResult& r = set.idle_time;
  EXPECT_EQ(r.source, ActivitySource::kDevice);
  ASSERT_EQ(r.lanes.size(), 2u);
  const IdleTimeRow& s7 = r.lanes[0];
  EXPECT_EQ(s7.thread, run.stream7);
  EXPECT_TRUE(s7.has_launches);
  EXPECT_EQ(s7.busy_ns, 223);
  EXPECT_EQ(s7.kernel_wait_ns, 10);  // [200,210): relu was launched at 150
  EXPECT_EQ(s7.kernel_wait_intervals, 1u);
  EXPECT_EQ(s7.host_wait_ns, 87);  // [213,300): gemm launched at 260, after relu ended
  EXPECT_EQ(s7.host_wait_intervals, 1u);
  EXPECT_EQ(s7.other_ns, 100);  // [400,500): the copy was launched at 300
  EXPECT_EQ(s7.other_intervals, 1u);
  EXPECT_EQ(s7.idle_ns(), 197);
  const IdleTimeRow& s8 = r.lanes[1];
  EXPECT_EQ(s8.thread, run.stream8);
  EXPECT_EQ(s8.busy_ns, 200);
  EXPECT_EQ(s8.idle_ns(), 0);
}

// The same lanes within [250, 450): gaps and busy time are clipped to the window, a gap
// still classified by its whole length ([213,300) is host wait: 50 ns of it inside).
TEST(IdleTime, WindowClipsGapsAndBusyTime) {
  CudaRun run = CudaShapedRun();
  const model::Model& m = run.b.model();
  IdleTimeOptions options;
  options.window_begin_ns = 250;
  options.window_end_ns = 450;
  const IdleTimeResult r = ComputeIdleTime(m, SelectActivities(m), options);
  ASSERT_EQ(r.lanes.size(), 2u);
  const IdleTimeRow& s7 = r.lanes[0];
  EXPECT_EQ(s7.host_wait_ns, 50);
  EXPECT_EQ(s7.kernel_wait_ns, 0);
  EXPECT_EQ(s7.other_ns, 50);  // [400,450) of [400,500)
  EXPECT_EQ(s7.busy_ns + s7.idle_ns(), 200) << "the window's length";
}

// CPU-only: the outermost framework operators of each host process; a nested operator is
// part of its parent's time; a gloo collective is communication.
TEST(KernelBreakdown, CpuOnlyFrameworkOperators) {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t worker = b.AddThread(0, 101);
  b.AddSlice(main, 0, 50, "aten::linear", "cpu_op");
  b.AddSlice(main, 10, 40, "aten::addmm", "cpu_op");
  b.AddSlice(main, 60, 70, "aten::relu", "cpu_op");
  b.AddSlice(worker, 65, 90, "gloo:all_reduce", "collective_comm");
  model::ResolveNesting(b.mutable_model());
  AnalysisSet set = RunAnalyses(b.model());
  const KernelBreakdownResult& r = set.kernel_breakdown;
  EXPECT_EQ(r.source, ActivitySource::kFrameworkOps);
  ASSERT_EQ(r.temporal.size(), 1u);
  EXPECT_EQ(r.temporal[0].span_ns, 90);
  EXPECT_EQ(r.temporal[0].idle_ns, 10);
  EXPECT_EQ(r.temporal[0].compute_ns, 60);
  EXPECT_EQ(r.temporal[0].non_compute_ns, 20);
  EXPECT_FALSE(r.has_launch_flows);
  ASSERT_EQ(r.top_kernels.size(), 3u);
  EXPECT_EQ(r.top_kernels[0].name, "aten::linear");
  EXPECT_EQ(r.top_kernels[1].name, "others");  // linear covers 50 of 60 ns already
  EXPECT_EQ(r.top_kernels[1].total_ns, 10);
  EXPECT_EQ(r.top_kernels[2].name, "gloo:all_reduce");
  EXPECT_EQ(r.top_kernels[2].type, ActivityType::kCommunication);

  const IdleTimeResult& idle = set.idle_time;
  ASSERT_EQ(idle.lanes.size(), 2u);
  EXPECT_FALSE(idle.lanes[0].has_launches);
  EXPECT_EQ(idle.lanes[0].busy_ns, 60);
  EXPECT_EQ(idle.lanes[0].kernel_wait_ns, 10);  // [50,60) < 30 ns
  EXPECT_EQ(idle.lanes[0].host_wait_ns, 0);
  EXPECT_EQ(idle.lanes[1].idle_ns(), 0);
}

}  // namespace
}  // namespace aiprof::analysis
