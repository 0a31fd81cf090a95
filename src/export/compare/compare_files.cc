#include "export/compare/compare_files.h"

#include <cmath>

#include "export/analysis/analysis_files.h"

namespace aiprof::exporter {
namespace {

using analysis::CallStatistics;
using analysis::NameDelta;

SummaryWriter& Ratio(SummaryWriter& w, double ratio) {
  return std::isinf(ratio) ? w.PlainText("inf") : w.Fixed(ratio, 4);
}

SummaryWriter& MeanMicros(SummaryWriter& w, double ns) {
  return w.Fixed(ns / 1000.0, 3);
}

void WriteSide(SummaryWriter& w, const CallStatistics& s) {
  w.Unsigned(s.calls).Micros(s.total_ns);
  MeanMicros(w, s.mean_ns()).Micros(s.self_ns).Micros(s.max_ns).Micros(s.min_ns);
}

void WriteNameDeltas(const std::vector<NameDelta>& deltas, const SummaryTarget& target,
                     const char* file, const char* name_column, bool with_shape) {
  std::vector<std::string> headers = {"Order Id", name_column, "Type"};
  if (with_shape) headers.push_back("Input Shape");
  headers.push_back("Change");
  for (const char* side : {"Base", "Comparison"}) {
    const std::string s = side;
    for (const char* column : {" Calls", " Total Duration(us)", " Avg Duration(us)",
                               " Self Time(us)", " Max Duration(us)", " Min Duration(us)"}) {
      headers.push_back(s + column);
    }
  }
  for (const char* column : {"Diff Calls", "Diff Total Duration(us)", "Diff Avg Duration(us)",
                             "Diff Self Time(us)", "Diff Total Ratio", "Diff Avg Ratio"}) {
    headers.push_back(column);
  }
  SummaryWriter w(target, file, std::move(headers), deltas.size());
  uint64_t order = 0;
  for (const NameDelta& d : deltas) {
    w.Unsigned(++order).Text(d.name).Text(d.type);
    if (with_shape) w.Text(d.input_shape);
    w.PlainText(analysis::ChangeName(d.change()));
    WriteSide(w, d.base);
    WriteSide(w, d.comparison);
    w.Number(d.diff_calls()).Micros(d.diff_total_ns());
    MeanMicros(w, d.diff_mean_ns()).Micros(d.diff_self_ns());
    Ratio(w, d.total_ratio());
    Ratio(w, d.mean_ratio());
    w.EndRow();
  }
}

void WriteSteps(const analysis::RunComparison& c, const SummaryTarget& target) {
  std::vector<std::string> headers = {"Base Device_id", "Comparison Device_id", "Rank", "Base Step",
                                      "Comparison Step"};
  for (const char* side : {"Base ", "Comparison ", "Diff "}) {
    for (size_t f = 0; f < analysis::kStepFigureCount; ++f) {
      headers.push_back(
          side + std::string(analysis::StepFigureName(static_cast<analysis::StepFigure>(f))) +
          "(us)");
    }
  }
  SummaryWriter w(target, "compare_steps", std::move(headers), c.steps.size());
  for (const analysis::StepDelta& row : c.steps) {
    w.Text(ScopeDeviceId(row.device_id, row.base_pid));
    w.Text(ScopeDeviceId(row.device_id, row.comparison_pid)).Number(row.rank);
    if (row.mean) {
      w.PlainText("mean of " + std::to_string(row.base_steps));
      w.PlainText("mean of " + std::to_string(row.comparison_steps));
    } else {
      w.Unsigned(row.base_step).Unsigned(row.comparison_step);
    }
    for (const analysis::StepFigures* side : {&row.base, &row.comparison}) {
      for (double ns : *side) MeanMicros(w, ns);
    }
    for (size_t f = 0; f < analysis::kStepFigureCount; ++f) {
      MeanMicros(w, row.diff_ns(static_cast<analysis::StepFigure>(f)));
    }
    w.EndRow();
  }
}

}  // namespace

void WriteCompareFiles(const analysis::RunComparison& comparison, const SummaryTarget& target) {
  const bool with_shape = comparison.options.group_by == analysis::CompareGroupBy::kNameAndShape;
  WriteNameDeltas(comparison.operators, target, "compare_operators", "Operator Name", with_shape);
  WriteNameDeltas(comparison.kernels, target, "compare_kernels", "Kernel", false);
  WriteSteps(comparison, target);
}

}  // namespace aiprof::exporter
