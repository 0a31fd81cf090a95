// The columns of the comparison's results (run_comparison.h), read by every writer:
// compare_operators, compare_kernels and compare_steps (export/compare/compare_files.h) and
// the UI API's /api/compare (server/compare_api.cc, its types in web/src/api.ts); the
// terminal report (export/compare/compare_report.h) prints the same accessors' figures.
// Every derived figure (a diff, a ratio, a mean) is its row's accessor, computed once.
//
// The writers' own key columns: the files' Order Id (the row's place in the ranking) and
// compare_steps' scope and step keys (the scope's device or host process, its rank, the step
// numbers or "mean of N"), which the UI sends under its own keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare/run_comparison.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis {

// The calls of one side (NameDelta::base or ::comparison).
template <CallStatistics NameDelta::*kSide>
constexpr Column<NameDelta> CallsColumn(std::string_view header, std::string_view key) {
  return {header,       key,
          "",           ColumnUnit::kCount,
          kFiles | kUi, [](const NameDelta& d) { return static_cast<int64_t>((d.*kSide).calls); }};
}
// A duration of one side: its total, self, longest or shortest call.
template <CallStatistics NameDelta::*kSide, int64_t CallStatistics::*kFigure>
constexpr Column<NameDelta> DurationColumn(std::string_view header, std::string_view key) {
  return {header,       key,
          "",           ColumnUnit::kNanoseconds,
          kFiles | kUi, [](const NameDelta& d) { return (d.*kSide).*kFigure; }};
}
// The mean duration of one side's calls.
template <CallStatistics NameDelta::*kSide>
constexpr Column<NameDelta> MeanColumn(std::string_view header, std::string_view key) {
  return RealColumn<NameDelta>(header, key, "", ColumnUnit::kMeanNanoseconds, kFiles | kUi,
                               [](const NameDelta& d) { return (d.*kSide).mean_ns(); });
}

// compare_operators and compare_kernels (see NameDeltaFileColumns for each file's name and
// shape columns) and the UI's operators and kernels: msprof-analyze compare's Base /
// Comparison / Diff columns.
inline constexpr Column<NameDelta> kNameDeltaColumns[] = {
    TextColumn<NameDelta>("Operator Name", "name", "", kFiles | kUi,
                          [](const NameDelta& d) { return d.name; }),
    TextColumn<NameDelta>("Type", "type", "", kFiles | kUi,
                          [](const NameDelta& d) { return d.type; }),
    TextColumn<NameDelta>("Input Shape", "input_shape", "", kFiles | kUi,
                          [](const NameDelta& d) { return d.input_shape; }),
    TextColumn<NameDelta>("Change", "change", "", kFiles | kUi,
                          [](const NameDelta& d) { return std::string(ChangeName(d.change())); }),
    CallsColumn<&NameDelta::base>("Base Calls", "base_calls"),
    DurationColumn<&NameDelta::base, &CallStatistics::total_ns>("Base Total Duration(us)",
                                                                "base_total"),
    MeanColumn<&NameDelta::base>("Base Avg Duration(us)", "base_mean"),
    DurationColumn<&NameDelta::base, &CallStatistics::self_ns>("Base Self Time(us)", "base_self"),
    DurationColumn<&NameDelta::base, &CallStatistics::max_ns>("Base Max Duration(us)", "base_max"),
    DurationColumn<&NameDelta::base, &CallStatistics::min_ns>("Base Min Duration(us)", "base_min"),
    CallsColumn<&NameDelta::comparison>("Comparison Calls", "comparison_calls"),
    DurationColumn<&NameDelta::comparison, &CallStatistics::total_ns>(
        "Comparison Total Duration(us)", "comparison_total"),
    MeanColumn<&NameDelta::comparison>("Comparison Avg Duration(us)", "comparison_mean"),
    DurationColumn<&NameDelta::comparison, &CallStatistics::self_ns>("Comparison Self Time(us)",
                                                                     "comparison_self"),
    DurationColumn<&NameDelta::comparison, &CallStatistics::max_ns>("Comparison Max Duration(us)",
                                                                    "comparison_max"),
    DurationColumn<&NameDelta::comparison, &CallStatistics::min_ns>("Comparison Min Duration(us)",
                                                                    "comparison_min"),
    {"Diff Calls", "diff_calls", "", ColumnUnit::kCount, kFiles | kUi,
     [](const NameDelta& d) { return d.diff_calls(); }},
    {"Diff Total Duration(us)", "diff_total", "", ColumnUnit::kNanoseconds, kFiles | kUi,
     [](const NameDelta& d) { return d.diff_total_ns(); }},
    RealColumn<NameDelta>("Diff Avg Duration(us)", "diff_mean", "", ColumnUnit::kMeanNanoseconds,
                          kFiles | kUi, [](const NameDelta& d) { return d.diff_mean_ns(); }),
    {"Diff Self Time(us)", "diff_self", "", ColumnUnit::kNanoseconds, kFiles | kUi,
     [](const NameDelta& d) { return d.diff_self_ns(); }},
    RealColumn<NameDelta>("Diff Total Ratio", "total_ratio", "", ColumnUnit::kDiffRatio,
                          kFiles | kUi, [](const NameDelta& d) { return d.total_ratio(); }),
    RealColumn<NameDelta>("Diff Avg Ratio", "mean_ratio", "", ColumnUnit::kDiffRatio, kFiles | kUi,
                          [](const NameDelta& d) { return d.mean_ratio(); }),
};

// The columns of compare_operators (kOperators) or compare_kernels: the name under the
// file's header ("Operator Name", "Kernel"), and Input Shape only in compare_operators of a
// comparison by shapes (--group-by=shape), as msprof-analyze compare names them.
std::vector<Column<NameDelta>> NameDeltaFileColumns(CallKind kind, CompareGroupBy group_by);

// A step figure of one side (StepDelta::base or ::comparison), or their difference.
template <StepFigures StepDelta::*kSide, size_t kFigure>
constexpr Column<StepDelta> StepSideColumn(std::string_view header, std::string_view key) {
  return RealColumn<StepDelta>(header, key, "", ColumnUnit::kMeanNanoseconds, kFiles | kUi,
                               [](const StepDelta& s) { return (s.*kSide)[kFigure]; });
}
template <size_t kFigure>
constexpr Column<StepDelta> StepDiffColumn(std::string_view header, std::string_view key) {
  return RealColumn<StepDelta>(
      header, key, "", ColumnUnit::kMeanNanoseconds, kFiles | kUi,
      [](const StepDelta& s) { return s.diff_ns(static_cast<StepFigure>(kFigure)); });
}

// compare_steps after the scope and step keys, and the UI's steps: each figure of the base
// (StepFigureName's order), of the comparison, then their differences.
inline constexpr Column<StepDelta> kStepDeltaColumns[] = {
    StepSideColumn<&StepDelta::base, 0>("Base Step Time(us)", "base_step_time"),
    StepSideColumn<&StepDelta::base, 1>("Base Computing(us)", "base_computing"),
    StepSideColumn<&StepDelta::base, 2>("Base Communication(Not Overlapped)(us)",
                                        "base_communication_not_overlapped"),
    StepSideColumn<&StepDelta::base, 3>("Base Communication(us)", "base_communication"),
    StepSideColumn<&StepDelta::base, 4>("Base Free(us)", "base_free"),
    StepSideColumn<&StepDelta::base, 5>("Base Preparing(us)", "base_preparing"),
    StepSideColumn<&StepDelta::comparison, 0>("Comparison Step Time(us)", "comparison_step_time"),
    StepSideColumn<&StepDelta::comparison, 1>("Comparison Computing(us)", "comparison_computing"),
    StepSideColumn<&StepDelta::comparison, 2>("Comparison Communication(Not Overlapped)(us)",
                                              "comparison_communication_not_overlapped"),
    StepSideColumn<&StepDelta::comparison, 3>("Comparison Communication(us)",
                                              "comparison_communication"),
    StepSideColumn<&StepDelta::comparison, 4>("Comparison Free(us)", "comparison_free"),
    StepSideColumn<&StepDelta::comparison, 5>("Comparison Preparing(us)", "comparison_preparing"),
    StepDiffColumn<0>("Diff Step Time(us)", "diff_step_time"),
    StepDiffColumn<1>("Diff Computing(us)", "diff_computing"),
    StepDiffColumn<2>("Diff Communication(Not Overlapped)(us)",
                      "diff_communication_not_overlapped"),
    StepDiffColumn<3>("Diff Communication(us)", "diff_communication"),
    StepDiffColumn<4>("Diff Free(us)", "diff_free"),
    StepDiffColumn<5>("Diff Preparing(us)", "diff_preparing"),
};

// The side of a step figure's column in kStepDeltaColumns.
enum class StepColumnSide : uint8_t { kBase, kComparison, kDiff };
// `figure`'s column of `side`.
constexpr const Column<StepDelta>& StepFigureColumn(StepColumnSide side, StepFigure figure) {
  return kStepDeltaColumns[static_cast<size_t>(side) * kStepFigureCount +
                           static_cast<size_t>(figure)];
}

}  // namespace aiprof::analysis
