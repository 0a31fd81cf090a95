// Traces written by real PyTorch (tests/kineto/data, made by make_torch113_traces.py with the
// Debian torch 1.13, whose profiler has no Kineto and writes the legacy array): imported, plain
// and gzip, into the model the analyses read, with the shapes the job has (3 profiled steps,
// each with one forward_pass range, two Linear layers).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/analysis_set.h"
#include "model/parser.h"

namespace aiprof::model {
namespace {

const std::string kData = AIPROF_KINETO_TEST_DATA;

void ExpectMlpSteps(const Model& m) {
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();
  EXPECT_EQ(m.slices.size(), 384u);
  std::map<std::string, int> count, by_category;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    ++count[std::string(m.Str(m.slices.name[row]))];
    ++by_category[std::string(m.Str(m.slices.category[row]))];
  }
  EXPECT_EQ(count["forward_pass"], 3);
  EXPECT_EQ(count["aten::addmm"], 6);
  EXPECT_EQ(count["Optimizer.step#SGD.step"], 3);
  // 21 autograd nodes (AddmmBackward0, ...) are operators, as Kineto writes them; the 12
  // record_function ranges (ProfilerStep#N, forward_pass, Optimizer.*) are annotations.
  EXPECT_EQ(by_category["cpu_op"], 372);
  EXPECT_EQ(by_category["user_annotation"], 12);

  const analysis::AnalysisSet set = analysis::RunAnalyses(m);
  EXPECT_FALSE(set.inputs.device_run);
  EXPECT_EQ(set.inputs.compute, analysis::ComputeInput::kFrameworkOps);
  EXPECT_EQ(set.steps.source, analysis::StepSource::kProfilerStepRanges);
  ASSERT_EQ(set.steps.steps.size(), 3u);
  const int64_t durations[] = {645'000, 558'000, 527'000};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(set.steps.steps[i].step, i + 1);
    EXPECT_EQ(set.steps.steps[i].end_ns - set.steps.steps[i].begin_ns, durations[i]);
  }
  ASSERT_EQ(set.step_breakdown.trace.size(), 3u);
  EXPECT_EQ(set.kernel_breakdown.source, analysis::ActivitySource::kFrameworkOps);
  ASSERT_EQ(set.kernel_breakdown.temporal.size(), 1u);
  const analysis::TemporalBreakdownRow& t = set.kernel_breakdown.temporal[0];
  EXPECT_EQ(t.span_ns, t.idle_ns + t.compute_ns + t.non_compute_ns);
  EXPECT_GT(t.compute_ns, t.span_ns / 2) << "the steps are mostly operators";
}

TEST(Torch113Traces, PlainTrace) {
  ExpectMlpSteps(ParseFiles({kData + "/torch113_mlp_steps.pt.trace.json"}));
}

TEST(Torch113Traces, GzipTrace) {
  ExpectMlpSteps(ParseFiles({kData + "/torch113_mlp_steps.pt.trace.json.gz"}));
}

}  // namespace
}  // namespace aiprof::model
