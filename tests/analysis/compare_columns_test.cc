// The comparison's column descriptions (analysis/compare/compare_columns.h): msprof-analyze
// compare's headers in order, each file's name and shape columns, the step figures' columns
// in StepFigureName's order, and the derived columns read from the rows' accessors.
#include "analysis/compare/compare_columns.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "analysis/described_cell.h"

namespace aiprof::analysis {
namespace {

using testing::Cell;
using testing::FileHeaders;

template <typename Row>
void ExpectUniqueNames(Columns<Row> columns) {
  std::set<std::string_view> keys, headers;
  for (const Column<Row>& column : columns) {
    EXPECT_TRUE(keys.insert(column.key).second) << column.key;
    EXPECT_TRUE(headers.insert(column.header).second) << column.header;
    EXPECT_TRUE(column.WrittenBy(kFiles) && column.WrittenBy(kUi)) << column.key;
  }
}

TEST(CompareColumns, NamesAreUnique) {
  ExpectUniqueNames<NameDelta>(kNameDeltaColumns);
  ExpectUniqueNames<StepDelta>(kStepDeltaColumns);
}

TEST(CompareColumns, EachFileNamesItsNameAndShowsShapesOnlyForOperatorsByShape) {
  const std::vector<std::string> by_shape = FileHeaders<NameDelta>(
      NameDeltaFileColumns(CallKind::kOperators, CompareGroupBy::kNameAndShape));
  ASSERT_EQ(by_shape.size(), 22u);
  EXPECT_EQ(std::vector<std::string>(by_shape.begin(), by_shape.begin() + 6),
            (std::vector<std::string>{"Operator Name", "Type", "Input Shape", "Change",
                                      "Base Calls", "Base Total Duration(us)"}));
  EXPECT_EQ(by_shape.back(), "Diff Avg Ratio");
  const std::vector<std::string> by_name =
      FileHeaders<NameDelta>(NameDeltaFileColumns(CallKind::kOperators, CompareGroupBy::kName));
  EXPECT_EQ(by_name.size(), 21u);
  EXPECT_EQ(by_name[2], "Change");
  for (CompareGroupBy group_by : {CompareGroupBy::kName, CompareGroupBy::kNameAndShape}) {
    const std::vector<std::string> kernels =
        FileHeaders<NameDelta>(NameDeltaFileColumns(CallKind::kKernels, group_by));
    ASSERT_EQ(kernels.size(), 21u);
    EXPECT_EQ(kernels[0], "Kernel");
    EXPECT_EQ(std::vector<std::string>(kernels.begin() + 1, kernels.end()),
              std::vector<std::string>(by_name.begin() + 1, by_name.end()));
  }
}

TEST(CompareColumns, StepFiguresInStepFigureNamesOrder) {
  const char* sides[] = {"Base ", "Comparison ", "Diff "};
  const char* keys[] = {"base_", "comparison_", "diff_"};
  ASSERT_EQ(std::size(kStepDeltaColumns), 3 * kStepFigureCount);
  for (size_t s = 0; s < 3; ++s) {
    for (size_t f = 0; f < kStepFigureCount; ++f) {
      const auto figure = static_cast<StepFigure>(f);
      const Column<StepDelta>& column = StepFigureColumn(static_cast<StepColumnSide>(s), figure);
      EXPECT_EQ(&column, &kStepDeltaColumns[s * kStepFigureCount + f]);
      EXPECT_EQ(column.header, sides[s] + std::string(StepFigureName(figure)) + "(us)");
      EXPECT_EQ(column.key.substr(0, std::string_view(keys[s]).size()), keys[s]);
      EXPECT_EQ(column.unit, ColumnUnit::kMeanNanoseconds);
    }
  }
}

TEST(CompareColumns, DerivedColumnsComeFromTheAccessors) {
  NameDelta d;
  d.name = "aten::mm";
  d.base.calls = 2;
  d.base.total_ns = 2469;
  d.comparison.calls = 3;
  d.comparison.total_ns = 1000;
  d.comparison.self_ns = 900;
  const Columns<NameDelta> columns = kNameDeltaColumns;
  EXPECT_EQ(Cell(columns, "change", d).text, "faster");
  EXPECT_EQ(Cell(columns, "diff_calls", d).integer, 1);
  EXPECT_EQ(Cell(columns, "diff_total", d).integer, -1469);
  EXPECT_EQ(Cell(columns, "diff_self", d).integer, 900);
  EXPECT_DOUBLE_EQ(Cell(columns, "base_mean", d).real, 1234.5);
  EXPECT_DOUBLE_EQ(Cell(columns, "diff_mean", d).real, d.diff_mean_ns());
  EXPECT_DOUBLE_EQ(Cell(columns, "total_ratio", d).real, 1000.0 / 2469);
  EXPECT_DOUBLE_EQ(Cell(columns, "mean_ratio", d).real, d.mean_ratio());
  NameDelta added;
  added.comparison.calls = 1;
  added.comparison.total_ns = 5;
  EXPECT_TRUE(std::isinf(Cell(columns, "total_ratio", added).real));
  EXPECT_EQ(Cell(columns, "change", added).text, "added");

  StepDelta s;
  s.base = {100, 0, 0, 0, 0, 0};
  s.comparison = {150, 7, 0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(StepFigureColumn(StepColumnSide::kDiff, StepFigure::kStepTime).Read(s).real, 50);
  EXPECT_DOUBLE_EQ(
      StepFigureColumn(StepColumnSide::kComparison, StepFigure::kComputing).Read(s).real, 7);
  EXPECT_DOUBLE_EQ(s.ratio(StepFigure::kStepTime), 1.5);
  EXPECT_TRUE(std::isinf(s.ratio(StepFigure::kComputing)));  // only the comparison has any
  EXPECT_DOUBLE_EQ(s.ratio(StepFigure::kFree), 1.0);         // neither has
}

}  // namespace
}  // namespace aiprof::analysis
