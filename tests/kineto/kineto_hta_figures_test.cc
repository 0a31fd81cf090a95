// HTA's figures (trace-analysis-and-ui.md §1.3-1.8) on a Kineto trace built here, through the
// importer and the one analysis set (analysis/analysis_set.h), against values worked out by
// hand. The trace: one host thread launching six device tasks on GPU 0, two streams (times in
// µs after the base):
//
//   host  L1 cudaLaunchKernel [0,5)      → K1 gemm           stream 7 [10,110)
//         L2 cudaMemcpyAsync  [20,25)    → M1 Memcpy HtoD    stream 8 [30,100)
//         L3 cudaLaunchKernel [120,125)  → K2 ncclKernel_*   stream 7 [150,250)
//         L4 cudaLaunchKernel [130,135)  → K4 relu           stream 8 [200,300)
//         L6 cudaLaunchKernel [140,160)  → K5 relu           stream 8 [300.010,310)
//         L5 cudaLaunchKernel [240,250)  → K3 gemm           stream 7 [450,500)
//
// Temporal breakdown: all tasks merged = [10,110) [150,300) [300.010,310) [450,500), 309.990
// busy of a 490 span → idle 180.010; computation (K1, K4, K5, K3) = 259.990; non-compute =
// 490 − 259.990 − 180.010 = 50 (the all-reduce's first half, under no kernel).
// Type sets: COMPUTATION alone [10,30) [100,110) [250,300) [300.010,310) [450,500) = 139.990;
// MEMORY+COMPUTATION [30,100) = 70; COMMUNICATION alone [150,200) = 50; COMMUNICATION+
// COMPUTATION [200,250) = 50. Communication overlapped by computation: 50 / 100 = 50%.
// Idle per stream (consecutive_kernel_delay 30 ns): stream 7: K1→K2 40 µs, L3 started after
// K1 ended → host wait; K2→K3 200 µs, L5 started before K2 ended → other. Stream 8: M1→K4
// 100 µs, L4 after M1 ended → host wait; K4→K5 10 ns → kernel wait.
// Launches: delays 5, 5, 25, 65, 140.010, 200 µs (total 440.010, max 200); two over the 100 µs
// cutoff; L6 (20 µs) is longer than its kernel (9.990 µs) and under 50 µs → one short kernel.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/analysis_set.h"
#include "kineto/trace_files.h"
#include "model/parser.h"

namespace aiprof::analysis {
namespace {

std::string Launch(const char* name, const char* ts, const char* dur, int correlation) {
  const std::string c = std::to_string(correlation);
  return std::string(R"({"ph": "X", "cat": "cuda_runtime", "name": ")") + name +
         R"(", "pid": 100, "tid": 100, "ts": )" + ts + R"(, "dur": )" + dur +
         R"(, "args": {"cbid": 211, "correlation": )" + c + "}},\n" + R"({"ph": "s", "id": )" + c +
         R"(, "pid": 100, "tid": 100, "ts": )" + ts + R"(, "cat": "ac2g", "name": "ac2g"},)" + "\n";
}

std::string Task(const char* category, const char* name, int stream, const char* ts,
                 const char* dur, int correlation) {
  const std::string c = std::to_string(correlation), s = std::to_string(stream);
  return std::string(R"({"ph": "X", "cat": ")") + category + R"(", "name": ")" + name +
         R"(", "pid": 0, "tid": )" + s + R"(, "ts": )" + ts + R"(, "dur": )" + dur +
         R"(, "args": {"device": 0, "stream": )" + s + R"(, "correlation": )" + c + "}},\n" +
         R"({"ph": "f", "id": )" + c + R"(, "pid": 0, "tid": )" + s + R"(, "ts": )" + ts +
         R"(, "cat": "ac2g", "name": "ac2g", "bp": "e"},)" + "\n";
}

class KinetoHtaFigures : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text =
        "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
        "\"traceEvents\": [\n"
        R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 100, "tid": 100, "ts": 0, "dur": 600},)"
        "\n";
    // Kineto repeats the step on the GPU stream it launched work on, 1 ns wider.
    text +=
        R"({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#0", "pid": 0, "tid": 7, "ts": 9.999, "dur": 490.002},)"
        "\n";
    text += Launch("cudaLaunchKernel", "0", "5", 1);
    text += Launch("cudaMemcpyAsync", "20", "5", 2);
    text += Launch("cudaLaunchKernel", "120", "5", 3);
    text += Launch("cudaLaunchKernel", "130", "5", 4);
    text += Launch("cudaLaunchKernel", "140", "20", 6);
    text += Launch("cudaLaunchKernel", "240", "10", 5);
    text += Task("kernel", "gemm_kernel", 7, "10", "100", 1);
    text += Task("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 8, "30", "70", 2);
    text += Task("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 7, "150", "100", 3);
    text += Task("kernel", "relu_kernel", 8, "200", "100", 4);
    text += Task("kernel", "relu_kernel", 8, "300.010", "9.990", 6);
    text += Task("kernel", "gemm_kernel", 7, "450", "50", 5);
    text +=
        R"({"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}]})";
    testing::TempDir dir("kineto_hta");
    const auto path = dir.path() / "hta.pt.trace.json";
    testing::WriteTextFile(path, text);
    model_ = model::ParseFiles({path.string()});
    ASSERT_TRUE(model_.files[0].report.clean()) << model_.files[0].report.Summary();
    set_ = RunAnalyses(model_);
  }

  model::Model model_;
  AnalysisSet set_;
};

TEST_F(KinetoHtaFigures, TemporalBreakdown) {
  ASSERT_EQ(set_.kernel_breakdown.source, ActivitySource::kDevice);
  ASSERT_EQ(set_.kernel_breakdown.temporal.size(), 1u);
  const TemporalBreakdownRow& row = set_.kernel_breakdown.temporal[0];
  EXPECT_EQ(model_.processes.device_id[row.process], 0);
  EXPECT_EQ(row.span_ns, 490'000);
  EXPECT_EQ(row.idle_ns, 180'010);
  EXPECT_EQ(row.compute_ns, 259'990);
  EXPECT_EQ(row.non_compute_ns, 50'000);
}

TEST_F(KinetoHtaFigures, KernelTypeBreakdownAndCommunicationOverlap) {
  std::map<std::string, int64_t> by_label;
  for (const TypeTimeRow& row : set_.kernel_breakdown.type_time) by_label[row.label] = row.time_ns;
  EXPECT_EQ(by_label.size(), 4u);
  EXPECT_EQ(by_label["COMPUTATION"], 139'990);
  EXPECT_EQ(by_label["MEMORY overlapping COMPUTATION"], 70'000);
  EXPECT_EQ(by_label["COMMUNICATION"], 50'000);
  EXPECT_EQ(by_label["COMMUNICATION overlapping COMPUTATION"], 50'000);
  const uint32_t gpu = set_.kernel_breakdown.temporal[0].process;
  const CommunicationOverlap overlap = CommunicationOverlapOf(set_.kernel_breakdown, gpu);
  EXPECT_EQ(overlap.communication_ns, 100'000);
  EXPECT_EQ(overlap.overlapped_ns, 50'000);
  EXPECT_DOUBLE_EQ(overlap.ratio(), 0.5);
}

TEST_F(KinetoHtaFigures, IdleTimeBreakdownPerStream) {
  std::map<uint32_t, IdleTimeRow> by_stream;
  for (const IdleTimeRow& lane : set_.idle_time.lanes) {
    by_stream[model_.threads.tid[lane.thread]] = lane;
  }
  ASSERT_EQ(by_stream.size(), 2u);
  const IdleTimeRow& seven = by_stream[7];
  EXPECT_TRUE(seven.has_launches);
  EXPECT_EQ(seven.busy_ns, 250'000);
  EXPECT_EQ(seven.host_wait_ns, 40'000);
  EXPECT_EQ(seven.kernel_wait_ns, 0);
  EXPECT_EQ(seven.other_ns, 200'000);
  EXPECT_EQ(seven.host_wait_intervals, 1u);
  EXPECT_EQ(seven.other_intervals, 1u);
  const IdleTimeRow& eight = by_stream[8];
  EXPECT_EQ(eight.busy_ns, 179'990);
  EXPECT_EQ(eight.host_wait_ns, 100'000);
  EXPECT_EQ(eight.kernel_wait_ns, 10);
  EXPECT_EQ(eight.other_ns, 0);
}

TEST_F(KinetoHtaFigures, KernelLaunchStatistics) {
  ASSERT_TRUE(set_.kernel_breakdown.has_launch_flows);
  const LaunchStatistics& launches = set_.kernel_breakdown.launches;
  EXPECT_EQ(launches.launches, 6u);
  EXPECT_EQ(launches.total_launch_delay_ns, 440'010);
  EXPECT_EQ(launches.max_launch_delay_ns, 200'000);
  EXPECT_EQ(launches.launch_delay_outliers, 2u);
  EXPECT_EQ(launches.short_kernels, 1u);
  EXPECT_EQ(launches.runtime_outliers, 0u);
}

TEST_F(KinetoHtaFigures, StepsAndCommunicationFromTheTrace) {
  EXPECT_EQ(set_.steps.source, StepSource::kProfilerStepRanges);
  ASSERT_EQ(set_.steps.steps.size(), 1u) << "the host's range, not its copy on the stream";
  EXPECT_EQ(model_.threads.tid[set_.steps.steps[0].thread], 100u);
  ASSERT_EQ(set_.communication.ops.size(), 1u);
  EXPECT_EQ(set_.communication.ops[0].type, model::CommOpType::kAllReduce);
}

}  // namespace
}  // namespace aiprof::analysis
