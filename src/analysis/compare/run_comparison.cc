#include "analysis/compare/run_comparison.h"

#include <limits>

namespace aiprof::analysis {
namespace {

ComparedRun Describe(const AnalysisSet& set) {
  ComparedRun run;
  run.iterations = set.options.iterations;
  run.step_source = set.steps.source;
  run.steps = set.steps.steps.size();
  run.device_run = set.inputs.device_run;
  run.dropped_records = set.inputs.dropped_records;
  return run;
}

}  // namespace

double DiffRatio(double comparison, double base) {
  if (base > 0) return comparison / base;
  return comparison > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

RunComparison CompareRuns(const model::Model& base_model, const AnalysisSet& base,
                          const model::Model& comparison_model, const AnalysisSet& comparison,
                          const CompareOptions& options) {
  RunComparison result;
  result.options = options;
  result.base = Describe(base);
  result.comparison = Describe(comparison);
  result.operators = MatchCalls(
      CollectCalls(base_model, base, CallKind::kOperators, options.group_by),
      CollectCalls(comparison_model, comparison, CallKind::kOperators, options.group_by));
  result.kernels =
      MatchCalls(CollectCalls(base_model, base, CallKind::kKernels, options.group_by),
                 CollectCalls(comparison_model, comparison, CallKind::kKernels, options.group_by));
  result.steps = CompareSteps(base_model, base, comparison_model, comparison, &result.notes);
  // Totals add up every call: unequal step counts make them unequal for that reason alone.
  if (result.base.steps != result.comparison.steps) {
    result.notes.push_back("the base covers " + std::to_string(result.base.steps) +
                           " step(s), the comparison " + std::to_string(result.comparison.steps) +
                           ": operator and kernel totals differ for that reason too; compare "
                           "means, or select steps with --iteration-id");
  }
  if (result.base.device_run != result.comparison.device_run) {
    result.notes.push_back(
        std::string("the base is a ") + (result.base.device_run ? "CUDA" : "CPU-only") +
        " run and the comparison a " + (result.comparison.device_run ? "CUDA" : "CPU-only") +
        " run: kernels and compute differ in kind");
  }
  if (result.base.dropped_records > 0 || result.comparison.dropped_records > 0) {
    result.notes.push_back("dropped records (buffer overflow): base " +
                           std::to_string(result.base.dropped_records) + ", comparison " +
                           std::to_string(result.comparison.dropped_records) +
                           "; the figures miss those events (raise --buffer-size)");
  }
  return result;
}

}  // namespace aiprof::analysis
