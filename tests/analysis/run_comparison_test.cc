#include "analysis/compare/run_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/analysis_set.h"
#include "analysis/hand_built_model.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

const NameDelta* Find(const std::vector<NameDelta>& deltas, const std::string& name) {
  for (const NameDelta& d : deltas) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

RunComparison Compare(const HandBuiltModel& base, const HandBuiltModel& comparison,
                      const AnalysisOptions& base_options = {},
                      const AnalysisOptions& comparison_options = {},
                      CompareGroupBy group_by = CompareGroupBy::kName) {
  const AnalysisSet base_set = RunAnalyses(base.model(), base_options);
  const AnalysisSet comparison_set = RunAnalyses(comparison.model(), comparison_options);
  return CompareRuns(base.model(), base_set, comparison.model(), comparison_set, {group_by});
}

// Base: aten::mm twice (100, 300 ns), aten::add (50), aten::relu (40, removed later).
// Comparison: aten::mm twice (100, 500), aten::add (50), aten::gelu (1000, added).
TEST(CompareRuns, AddedRemovedAndChangedOperatorsWithExactDeltas) {
  HandBuiltModel base;
  uint32_t t = base.AddProcess(100);
  base.AddSlice(t, 0, 100, "aten::mm", "cpu_op");
  base.AddSlice(t, 200, 500, "aten::mm", "cpu_op");
  base.AddSlice(t, 600, 650, "aten::add", "cpu_op");
  base.AddSlice(t, 700, 740, "aten::relu", "cpu_op");
  HandBuiltModel comparison;
  t = comparison.AddProcess(200);
  comparison.AddSlice(t, 0, 100, "aten::mm", "cpu_op");
  comparison.AddSlice(t, 200, 700, "aten::mm", "cpu_op");
  comparison.AddSlice(t, 800, 850, "aten::add", "cpu_op");
  comparison.AddSlice(t, 900, 1900, "aten::gelu", "cpu_op");

  const RunComparison c = Compare(base, comparison);
  ASSERT_EQ(c.operators.size(), 4u);
  // Largest regression first, the removed operator (an improvement) last.
  EXPECT_EQ(c.operators[0].name, "aten::gelu");
  EXPECT_EQ(c.operators[1].name, "aten::mm");
  EXPECT_EQ(c.operators[2].name, "aten::add");
  EXPECT_EQ(c.operators[3].name, "aten::relu");

  const NameDelta& gelu = c.operators[0];
  EXPECT_EQ(gelu.change(), Change::kAdded);
  EXPECT_EQ(gelu.base.calls, 0u);
  EXPECT_EQ(gelu.comparison.calls, 1u);
  EXPECT_EQ(gelu.diff_total_ns(), 1000);
  EXPECT_TRUE(std::isinf(gelu.total_ratio()));

  const NameDelta& mm = c.operators[1];
  EXPECT_EQ(mm.type, "cpu_op");
  EXPECT_EQ(mm.change(), Change::kSlower);
  EXPECT_EQ(mm.base.calls, 2u);
  EXPECT_EQ(mm.base.total_ns, 400);
  EXPECT_EQ(mm.base.min_ns, 100);
  EXPECT_EQ(mm.base.max_ns, 300);
  EXPECT_DOUBLE_EQ(mm.base.mean_ns(), 200.0);
  EXPECT_EQ(mm.comparison.total_ns, 600);
  EXPECT_EQ(mm.comparison.max_ns, 500);
  EXPECT_EQ(mm.diff_calls(), 0);
  EXPECT_EQ(mm.diff_total_ns(), 200);
  EXPECT_EQ(mm.diff_self_ns(), 200);
  EXPECT_DOUBLE_EQ(mm.diff_mean_ns(), 100.0);
  EXPECT_DOUBLE_EQ(mm.total_ratio(), 1.5);
  EXPECT_DOUBLE_EQ(mm.mean_ratio(), 1.5);

  const NameDelta& add = c.operators[2];
  EXPECT_EQ(add.change(), Change::kUnchanged);
  EXPECT_EQ(add.diff_total_ns(), 0);
  EXPECT_DOUBLE_EQ(add.total_ratio(), 1.0);

  const NameDelta& relu = c.operators[3];
  EXPECT_EQ(relu.change(), Change::kRemoved);
  EXPECT_EQ(relu.comparison.calls, 0u);
  EXPECT_EQ(relu.diff_calls(), -1);
  EXPECT_EQ(relu.diff_total_ns(), -40);
  EXPECT_DOUBLE_EQ(relu.total_ratio(), 0.0);
  EXPECT_TRUE(c.kernels.empty());
}

TEST(CompareRuns, ARunAgainstItselfHasNoChange) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, /*device_id=*/0);
  b.AddStep(host, 1, 0, 100);
  b.AddStep(host, 2, 100, 200);
  b.AddSlice(host, 10, 40, "aten::mm", "cpu_op");
  b.AddSlice(host, 110, 150, "aten::mm", "cpu_op");
  b.AddSlice(stream, 20, 60, "sgemm", "kernel");
  b.AddSlice(stream, 120, 170, "sgemm", "kernel");
  const RunComparison c = Compare(b, b);
  ASSERT_EQ(c.operators.size(), 1u);
  ASSERT_EQ(c.kernels.size(), 1u);
  for (const auto* deltas : {&c.operators, &c.kernels}) {
    for (const NameDelta& d : *deltas) {
      EXPECT_EQ(d.change(), Change::kUnchanged) << d.name;
      EXPECT_EQ(d.diff_total_ns(), 0) << d.name;
      EXPECT_EQ(d.diff_calls(), 0) << d.name;
    }
  }
  ASSERT_EQ(c.steps.size(), 3u);  // two step pairs and the mean
  for (const StepDelta& row : c.steps) {
    for (size_t f = 0; f < kStepFigureCount; ++f) {
      EXPECT_EQ(row.diff_ns(static_cast<StepFigure>(f)), 0.0);
    }
  }
  EXPECT_TRUE(c.notes.empty());
}

TEST(CompareRuns, KernelsAreDeviceTasksAndStepRangesAreNoOperators) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, /*device_id=*/0);
  b.AddStep(host, 1, 0, 100);
  b.AddSlice(host, 10, 20, "cudaLaunchKernel", "cuda_runtime");
  b.AddSlice(host, 30, 40, "forward", "user_annotation");
  b.AddSlice(stream, 20, 60, "sgemm", "kernel");
  b.AddSlice(stream, 60, 70, "Memcpy HtoD", "gpu_memcpy");
  HandBuiltModel other;
  host = other.AddProcess(100);
  stream = other.AddProcess(0, /*device_id=*/0);
  other.AddStep(host, 1, 0, 100);
  other.AddSlice(host, 30, 40, "forward", "user_annotation");
  other.AddSlice(stream, 20, 90, "sgemm", "kernel");
  const RunComparison c = Compare(b, other);
  ASSERT_EQ(c.operators.size(), 1u);  // not ProfilerStep#1, not the runtime API call
  EXPECT_EQ(c.operators[0].name, "forward");
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.kernels[0].name, "sgemm");
  EXPECT_EQ(c.kernels[0].diff_total_ns(), 30);
  EXPECT_EQ(c.kernels[0].base.self_ns, 40);
  EXPECT_EQ(c.kernels[1].name, "Memcpy HtoD");
  EXPECT_EQ(c.kernels[1].type, "gpu_memcpy");
  EXPECT_EQ(c.kernels[1].change(), Change::kRemoved);
}

TEST(CompareRuns, SelfTimeExcludesNestedSlices) {
  HandBuiltModel b;
  uint32_t t = b.AddProcess(100);
  uint32_t linear = b.AddSlice(t, 0, 100, "aten::linear", "cpu_op");
  uint32_t mm = b.AddSlice(t, 10, 70, "aten::mm", "cpu_op");
  model::Model& m = b.mutable_model();
  m.slices.parent[mm] = linear;
  m.slices.depth[mm] = 1;
  const RunComparison c = Compare(b, b);
  const NameDelta* l = Find(c.operators, "aten::linear");
  const NameDelta* inner = Find(c.operators, "aten::mm");
  ASSERT_NE(l, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(l->base.total_ns, 100);
  EXPECT_EQ(l->base.self_ns, 40);
  EXPECT_EQ(inner->base.self_ns, 60);
}

// An arg set holding only "Input Dims".
uint32_t AddInputDims(model::Model& m, std::string_view dims) {
  m.args.key.push_back(m.strings.Intern("Input Dims"));
  m.args.type.push_back(model::ArgType::kJson);
  m.args.value.push_back(m.strings.Intern(dims));
  m.args.set_begin.push_back(static_cast<uint32_t>(m.args.key.size()));
  return static_cast<uint32_t>(m.args.sets() - 1);
}

TEST(CompareRuns, GroupByShapeSeparatesInputShapes) {
  HandBuiltModel base;
  uint32_t t = base.AddProcess(100);
  uint32_t small = base.AddSlice(t, 0, 100, "aten::mm", "cpu_op");
  uint32_t large = base.AddSlice(t, 200, 600, "aten::mm", "cpu_op");
  model::Model& bm = base.mutable_model();
  bm.slices.args[small] = AddInputDims(bm, "[[32, 64], [64, 16]]");
  bm.slices.args[large] = AddInputDims(bm, "[[128, 64], [64, 16]]");
  HandBuiltModel comparison;
  t = comparison.AddProcess(100);
  uint32_t only = comparison.AddSlice(t, 0, 900, "aten::mm", "cpu_op");
  model::Model& cm = comparison.mutable_model();
  cm.slices.args[only] = AddInputDims(cm, "[[128, 64], [64, 16]]");

  const RunComparison by_name = Compare(base, comparison);
  ASSERT_EQ(by_name.operators.size(), 1u);
  EXPECT_EQ(by_name.operators[0].input_shape, "");
  EXPECT_EQ(by_name.operators[0].diff_calls(), -1);
  EXPECT_EQ(by_name.operators[0].diff_total_ns(), 400);

  const RunComparison by_shape = Compare(base, comparison, {}, {}, CompareGroupBy::kNameAndShape);
  ASSERT_EQ(by_shape.operators.size(), 2u);
  EXPECT_EQ(by_shape.operators[0].input_shape, "128,64;64,16");
  EXPECT_EQ(by_shape.operators[0].diff_total_ns(), 500);
  EXPECT_EQ(by_shape.operators[1].input_shape, "32,64;64,16");
  EXPECT_EQ(by_shape.operators[1].change(), Change::kRemoved);
}

// CPU-only: steps of 1000 ns with an operator; the comparison's second step is longer.
HandBuiltModel StepsModel(int64_t second_op_ns) {
  HandBuiltModel b;
  uint32_t t = b.AddProcess(100);
  b.AddStep(t, 1, 0, 1000);
  b.AddSlice(t, 100, 600, "aten::mm", "cpu_op");
  b.AddStep(t, 2, 1000, 1200 + second_op_ns);
  b.AddSlice(t, 1200, 1200 + second_op_ns, "aten::mm", "cpu_op");
  return b;
}

TEST(CompareRuns, StepBreakdownDeltasPerStepAndMean) {
  const RunComparison c = Compare(StepsModel(500), StepsModel(900));
  ASSERT_EQ(c.steps.size(), 3u);
  const StepDelta& first = c.steps[0];
  EXPECT_FALSE(first.mean);
  EXPECT_EQ(first.base_step, 1u);
  EXPECT_EQ(first.diff_ns(StepFigure::kStepTime), 0.0);
  const StepDelta& second = c.steps[1];
  EXPECT_EQ(second.base_step, 2u);
  EXPECT_EQ(second.comparison_step, 2u);
  EXPECT_EQ(second.base[static_cast<size_t>(StepFigure::kStepTime)], 700.0);
  EXPECT_EQ(second.comparison[static_cast<size_t>(StepFigure::kStepTime)], 1100.0);
  EXPECT_EQ(second.diff_ns(StepFigure::kStepTime), 400.0);
  EXPECT_EQ(second.diff_ns(StepFigure::kComputing), 400.0);
  EXPECT_EQ(second.base[static_cast<size_t>(StepFigure::kPreparing)], 200.0);
  EXPECT_EQ(second.diff_ns(StepFigure::kPreparing), 0.0);
  EXPECT_EQ(second.diff_ns(StepFigure::kCommunication), 0.0);
  const StepDelta& mean = c.steps[2];
  EXPECT_TRUE(mean.mean);
  EXPECT_EQ(mean.base_steps, 2u);
  EXPECT_EQ(mean.base[static_cast<size_t>(StepFigure::kStepTime)], 850.0);
  EXPECT_EQ(mean.diff_ns(StepFigure::kStepTime), 200.0);
  EXPECT_EQ(mean.diff_ns(StepFigure::kComputing), 200.0);
  ASSERT_EQ(c.operators.size(), 1u);
  EXPECT_EQ(c.operators[0].diff_total_ns(), 400);
}

TEST(CompareRuns, IterationsCompareTwoStepsOfOneRun) {
  HandBuiltModel b = StepsModel(900);
  const RunComparison c = Compare(b, b, {model::StepRange{1, 1}}, {model::StepRange{2, 2}});
  EXPECT_EQ(c.base.steps, 1u);
  EXPECT_EQ(c.comparison.steps, 1u);
  ASSERT_EQ(c.operators.size(), 1u);
  EXPECT_EQ(c.operators[0].base.calls, 1u);  // only the operator inside each step
  EXPECT_EQ(c.operators[0].base.total_ns, 500);
  EXPECT_EQ(c.operators[0].comparison.total_ns, 900);
  ASSERT_EQ(c.steps.size(), 2u);
  EXPECT_EQ(c.steps[0].base_step, 1u);
  EXPECT_EQ(c.steps[0].comparison_step, 2u);
  EXPECT_EQ(c.steps[0].diff_ns(StepFigure::kStepTime), 100.0);
}

TEST(CompareRuns, NotesTellUnequalStepsAndUnpairedScopes) {
  HandBuiltModel base;
  uint32_t host = base.AddProcess(100);
  uint32_t stream = base.AddProcess(0, /*device_id=*/0);
  base.AddStep(host, 1, 0, 100);
  base.AddStep(host, 2, 100, 200);
  base.AddSlice(stream, 10, 50, "sgemm", "kernel");
  base.AddSlice(stream, 110, 150, "sgemm", "kernel");
  HandBuiltModel comparison;
  host = comparison.AddProcess(100);
  stream = comparison.AddProcess(1, /*device_id=*/1);
  comparison.AddStep(host, 1, 0, 100);
  comparison.AddSlice(stream, 10, 50, "sgemm", "kernel");
  const RunComparison c = Compare(base, comparison);
  EXPECT_TRUE(c.steps.empty());
  ASSERT_EQ(c.notes.size(), 3u);
  EXPECT_NE(c.notes[0].find("only the base run has device 0"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[1].find("only the comparison run has device 1"), std::string::npos)
      << c.notes[1];
  EXPECT_NE(c.notes[2].find("2 step(s), the comparison 1"), std::string::npos) << c.notes[2];
}

}  // namespace
}  // namespace aiprof::analysis
