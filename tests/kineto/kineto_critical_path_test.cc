// The critical path (analysis/critical_path/) on imported Kineto traces, as on aiprof's own
// runs: a real torch.profiler trace (tests/kineto/data, torch 1.13: ProfilerStep#1..3 on one
// CPU thread) gets one path per ProfilerStep#N that covers its step end to end; and a
// Kineto trace built here with a cudaStreamWaitEvent (Kineto's cuda_sync record naming the
// event's stream and its cudaEventRecord's correlation id, `wait_on_stream` and
// `wait_on_cuda_event_record_corr_id`) orders two streams on the path, the dependency HTA's
// critical path reads from the same arguments.
#include <gtest/gtest.h>

#include <string>

#include "analysis/analysis_set.h"
#include "kineto/trace_files.h"
#include "model/parser.h"

namespace aiprof::analysis {
namespace {

const std::string kData = AIPROF_KINETO_TEST_DATA;

void ExpectPathsCoverTheirSteps(const model::Model& m, const CriticalPathResult& r) {
  for (const CriticalPathStep& step : r.steps) {
    SCOPED_TRACE("step " + std::to_string(step.step));
    EXPECT_EQ(step.attribution.total(), step.duration_ns());
    ASSERT_GT(step.segment_count, 0u);
    int64_t at = step.begin_ns;
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const CriticalPathSegment s = r.Segment(m, step, i);
      EXPECT_EQ(s.begin_ns, at);
      EXPECT_GT(s.end_ns, s.begin_ns);
      at = s.end_ns;
    }
    EXPECT_EQ(at, step.end_ns);
  }
}

TEST(KinetoCriticalPath, EachProfilerStepOfATorchTraceHasItsPath) {
  const model::Model m = model::ParseFiles({kData + "/torch113_mlp_steps.pt.trace.json"});
  const AnalysisSet set = RunAnalyses(m, {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_TRUE(r.computed);
  EXPECT_FALSE(r.whole_run);
  ASSERT_EQ(r.steps.size(), set.steps.steps.size());
  ASSERT_EQ(r.steps.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.steps[i].step, i + 1);  // ProfilerStep#1..3
    EXPECT_EQ(r.steps[i].begin_ns, set.steps.steps[i].begin_ns);
    EXPECT_EQ(r.steps[i].end_ns, set.steps.steps[i].end_ns);
  }
  ExpectPathsCoverTheirSteps(m, r);
  // One CPU thread of operators: the path is its operators (compute) and their gaps.
  EXPECT_GT(r.attribution[PathCategory::kCompute], r.step_ns / 2);
  const WhatIfSummary* faster = r.Find(WhatIfKind::kOperatorFaster);
  ASSERT_NE(faster, nullptr);
  EXPECT_TRUE(faster->applicable);
  EXPECT_GT(faster->saving_ns(), 0);
}

// The same trace under HTA's critical_path_analysis (scripts/compare-hta-critical-path.sh,
// docs/analysis.md): on one CPU thread HTA's path weight is the time of the operators
// (cpu_op events) it runs through, all cpu_bound: 456, 417 and 391 µs for ProfilerStep#1..3.
// aiprof's compute on each step's path is that same operator time: 456, 415 and 391 µs (HTA's
// 417 counts two children that end 1 µs after their parents, a µs truncation of this trace,
// twice); the record_function ranges' own time (forward_pass, Optimizer.*) is host
// overhead and the gaps between operators idle, both weightless dependency edges in HTA.
TEST(KinetoCriticalPath, ATorchTracesComputeIsHtasOperatorWeight) {
  const model::Model m = model::ParseFiles({kData + "/torch113_mlp_steps.pt.trace.json"});
  const CriticalPathResult& r = RunAnalyses(m, {std::nullopt, true}).critical_path;
  ASSERT_EQ(r.steps.size(), 3u);
  const int64_t compute[] = {456'000, 415'000, 391'000};
  const int64_t host[] = {85'000, 62'000, 58'000};
  const int64_t idle[] = {104'000, 81'000, 78'000};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("step " + std::to_string(i + 1));
    EXPECT_EQ(r.steps[i].attribution[PathCategory::kCompute], compute[i]);
    EXPECT_EQ(r.steps[i].attribution[PathCategory::kHostOverhead], host[i]);
    EXPECT_EQ(r.steps[i].attribution[PathCategory::kIdle], idle[i]);
  }
}

// µs after the base. Host: gemm_a launched at 2 on stream 7 [10, 60); cudaEventRecord at 5
// (correlation 42); cudaStreamWaitEvent at 6 makes stream 8 wait for it; gemm_b launched at 8
// on stream 8 runs [60, 90); cudaDeviceSynchronize [10, 95); the step is [0, 100).
std::string StreamWaitEventTrace() {
  std::string text =
      "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
      "\"traceEvents\": [\n"
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100, "ts": 0, "dur": 100},)"
      "\n";
  const auto host = [&](const char* name, const char* ts, const char* dur, int correlation,
                        bool flow) {
    const std::string c = std::to_string(correlation);
    text += std::string(R"({"ph": "X", "cat": "cuda_runtime", "name": ")") + name +
            R"(", "pid": 100, "tid": 100, "ts": )" + ts + R"(, "dur": )" + dur +
            R"(, "args": {"correlation": )" + c + "}},\n";
    if (flow) {
      text += R"({"ph": "s", "id": )" + c + R"(, "pid": 100, "tid": 100, "ts": )" + ts +
              R"(, "cat": "ac2g", "name": "ac2g"},)" + "\n";
    }
  };
  const auto kernel = [&](const char* name, int stream, const char* ts, const char* dur,
                          int correlation) {
    const std::string c = std::to_string(correlation), s = std::to_string(stream);
    text += std::string(R"({"ph": "X", "cat": "kernel", "name": ")") + name +
            R"(", "pid": 0, "tid": )" + s + R"(, "ts": )" + ts + R"(, "dur": )" + dur +
            R"(, "args": {"device": 0, "stream": )" + s + R"(, "correlation": )" + c + "}},\n" +
            R"({"ph": "f", "id": )" + c + R"(, "pid": 0, "tid": )" + s + R"(, "ts": )" + ts +
            R"(, "cat": "ac2g", "name": "ac2g", "bp": "e"},)" + "\n";
  };
  host("cudaLaunchKernel", "2", "2", 1, true);
  host("cudaEventRecord", "5", "1", 42, false);
  host("cudaStreamWaitEvent", "6", "1", 43, false);
  host("cudaLaunchKernel", "8", "1", 2, true);
  host("cudaDeviceSynchronize", "10", "85", 44, false);
  kernel("gemm_a", 7, "10", "50", 1);
  kernel("gemm_b", 8, "60", "30", 2);
  text +=
      R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 8, "ts": 6, "dur": 1, )"
      R"("args": {"cuda_sync_kind": "Stream Wait Event", "stream": 8, "correlation": 43, "device": 0, )"
      R"("wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 42, "wait_on_cuda_event_id": 3}},)"
      "\n"
      R"({"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}]})";
  return text;
}

TEST(KinetoCriticalPath, AStreamWaitEventOrdersTheStreamsOnThePath) {
  testing::TempDir dir("kineto_critical_path");
  const auto path = dir.path() / "wait.pt.trace.json";
  testing::WriteTextFile(path, StreamWaitEventTrace());
  const model::Model m = model::ParseFiles({path.string()});
  ASSERT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();
  const AnalysisSet set = RunAnalyses(m, {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);
  ExpectPathsCoverTheirSteps(m, r);
  // gemm_a then gemm_b: 80 µs of compute; gemm_b's launch is not what held it back.
  EXPECT_EQ(r.steps[0].attribution[PathCategory::kCompute], 80'000);
  EXPECT_EQ(r.steps[0].attribution[PathCategory::kHostOverhead], 8'000);
  const std::vector<int64_t> faster =
      ProjectSteps(m, set, {{WhatIfKind::kOperatorFaster, "gemm_a", PathCategory::kCompute, 0.5}});
  EXPECT_EQ(faster, std::vector<int64_t>{75'000});
}

}  // namespace
}  // namespace aiprof::analysis
