#include "export/compare/compare_files.h"

#include "analysis/compare/compare_columns.h"
#include "export/analysis/analysis_files.h"

namespace aiprof::exporter {
namespace {

using analysis::CallKind;
using analysis::NameDelta;

void WriteNameDeltas(const std::vector<NameDelta>& deltas, CallKind kind,
                     analysis::CompareGroupBy group_by, const SummaryTarget& target,
                     const char* file) {
  const std::vector<analysis::Column<NameDelta>> columns =
      analysis::NameDeltaFileColumns(kind, group_by);
  std::vector<std::string> headers = {"Order Id"};
  AppendHeaders<NameDelta>(headers, columns);
  SummaryWriter w(target, file, std::move(headers), deltas.size());
  uint64_t order = 0;
  for (const NameDelta& d : deltas) {
    w.Unsigned(++order).Cells<NameDelta>(columns, d).EndRow();
  }
}

// The scope (its device, or host process on each side) and the steps compared, or "mean of
// N" for each side's mean, before the described figures.
void WriteSteps(const std::vector<analysis::StepDelta>& steps, const SummaryTarget& target) {
  std::vector<std::string> headers = {"Base Device_id", "Comparison Device_id", "Rank", "Base Step",
                                      "Comparison Step"};
  AppendHeaders<analysis::StepDelta>(headers, analysis::kStepDeltaColumns);
  SummaryWriter w(target, "compare_steps", std::move(headers), steps.size());
  for (const analysis::StepDelta& row : steps) {
    w.Text(ScopeDeviceId(row.device_id, row.base_pid));
    w.Text(ScopeDeviceId(row.device_id, row.comparison_pid)).Number(row.rank);
    if (row.mean) {
      w.PlainText("mean of " + std::to_string(row.base_steps));
      w.PlainText("mean of " + std::to_string(row.comparison_steps));
    } else {
      w.Unsigned(row.base_step).Unsigned(row.comparison_step);
    }
    w.Cells<analysis::StepDelta>(analysis::kStepDeltaColumns, row).EndRow();
  }
}

}  // namespace

void WriteCompareFiles(const analysis::RunComparison& comparison, const SummaryTarget& target) {
  const analysis::CompareGroupBy group_by = comparison.options.group_by;
  WriteNameDeltas(comparison.operators, CallKind::kOperators, group_by, target,
                  "compare_operators");
  WriteNameDeltas(comparison.kernels, CallKind::kKernels, group_by, target, "compare_kernels");
  WriteSteps(comparison.steps, target);
}

}  // namespace aiprof::exporter
