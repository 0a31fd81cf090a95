// The step_trace_time column description (analysis/step_breakdown.h): msprof's published
// columns in msprof's order, the derived columns computed by the accessors from the parts,
// and the writer flags each output relies on.
#include "analysis/result_columns.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/step_breakdown.h"

namespace aiprof::analysis {
namespace {

std::vector<std::string> Headers(ColumnWriter writer) {
  std::vector<std::string> headers;
  for (const auto& column : kStepTraceTimeColumns) {
    if (column.WrittenBy(writer)) headers.emplace_back(column.header);
  }
  return headers;
}

TEST(ResultColumnsTest, StepTraceTimeFilesKeepMsprofsColumnsInOrder) {
  EXPECT_EQ(
      Headers(kFiles),
      (std::vector<std::string>{"Computing", "Communication(Not Overlapped)", "Overlapped",
                                "Communication", "Free", "Stage", "Bubble",
                                "Communication(Not Overlapped and Exclude Receive)", "Preparing"}));
}

TEST(ResultColumnsTest, DerivedColumnsComeFromTheParts) {
  StepParts parts;
  parts.computing_ns = 100;
  parts.communication_ns = 40;
  parts.communication_not_overlapped_ns = 15;
  parts.free_ns = 30;
  parts.bubble_ns = 20;
  parts.preparing_ns = 5;
  parts.input_wait_ns = 12;
  const StepTraceTimeValues values = StepTraceTimeValuesOf(parts);
  auto value = [&](std::string_view key) -> int64_t {
    for (size_t i = 0; i < kStepTraceTimeColumnCount; ++i) {
      if (kStepTraceTimeColumns[i].key == key) return values[i];
    }
    ADD_FAILURE() << "no column " << key;
    return -1;
  };
  EXPECT_EQ(value("computing"), 100);
  EXPECT_EQ(value("overlapped"), 40 - 15);
  EXPECT_EQ(value("stage"), 100 + 15 + 30 - 20);
  EXPECT_EQ(value("communication_not_overlapped_and_exclude_receive"), 0);  // 15 - 20 < 0
  EXPECT_EQ(value("input_wait"), 12);
  EXPECT_EQ(value("idle"), 30 - 12);
}

TEST(ResultColumnsTest, NamesAreUniqueAndEveryColumnHasAWriter) {
  std::set<std::string_view> keys, headers, db_names;
  for (const auto& column : kStepTraceTimeColumns) {
    EXPECT_TRUE(keys.insert(column.key).second) << column.key;
    EXPECT_TRUE(headers.insert(column.header).second) << column.header;
    EXPECT_TRUE(db_names.insert(column.DatabaseName()).second) << column.DatabaseName();
    EXPECT_NE(column.writers, 0) << column.key;
    EXPECT_NE(column.value, nullptr) << column.key;
  }
}

TEST(ResultColumnsTest, DatabaseSpellingAndType) {
  const Column<StepParts>& input_wait = kStepTraceTimeColumns[kStepTraceTimeColumnCount - 2];
  EXPECT_EQ(input_wait.key, "input_wait");
  EXPECT_EQ(input_wait.DatabaseName(), "inputWait");  // the table's published name
  EXPECT_EQ(input_wait.DatabaseType(), "REAL");       // µs, as msprof's tables
  EXPECT_FALSE(input_wait.WrittenBy(kFiles));
  EXPECT_EQ(kStepTraceTimeColumns[0].DatabaseName(), "computing");
  EXPECT_DOUBLE_EQ(MicrosValue(1500), 1.5);
}

// The comparison's units: a mean is held as µs, a Diff Ratio may be infinite (null in the UI).
TEST(ResultColumnsTest, MeanAndDiffRatioUnits) {
  struct Row {};
  const auto column = [](ColumnUnit unit) {
    return RealColumn<Row>("H", "k", "", unit, kEveryWriter, [](const Row&) { return 0.0; });
  };
  CellValue cell;
  cell.kind = CellValue::kReal;
  cell.real = 1234.5;
  EXPECT_DOUBLE_EQ(ScaledValue(ColumnUnit::kMeanNanoseconds, cell), 1.2345);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kMeanNanoseconds, cell), 1.2345);
  EXPECT_DOUBLE_EQ(ScaledValue(ColumnUnit::kDiffRatio, cell), 1234.5);
  EXPECT_EQ(ClusterDecimals(ColumnUnit::kMeanNanoseconds), 3);
  EXPECT_EQ(ClusterDecimals(ColumnUnit::kDiffRatio), 4);
  EXPECT_EQ(column(ColumnUnit::kMeanNanoseconds).UiType(), "number");
  EXPECT_EQ(column(ColumnUnit::kDiffRatio).UiType(), "number | null");
  EXPECT_EQ(column(ColumnUnit::kRatio).UiType(), "number");
  EXPECT_EQ(column(ColumnUnit::kDiffRatio).DatabaseType(), "REAL");
  EXPECT_TRUE(HeldAsReal(ColumnUnit::kMeanNanoseconds));
  EXPECT_FALSE(WrittenAsMicros(ColumnUnit::kMeanNanoseconds));  // its own rounding
}

}  // namespace
}  // namespace aiprof::analysis
