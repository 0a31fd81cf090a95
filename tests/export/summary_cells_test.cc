// A described cell as the summary files spell its unit (SummaryWriter::Cell), in CSV and in
// JSON: durations as µs from whole ns, means as µs of the real ns (not rounded to a whole ns
// first), shares rounded, a Diff Ratio with 4 decimals or "inf", N/A when not known.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "export/csv/summary_writer.h"

namespace aiprof::exporter {
namespace {

namespace fs = std::filesystem;
using analysis::CellValue;
using analysis::ColumnUnit;

CellValue Real(double value) {
  CellValue cell;
  cell.kind = CellValue::kReal;
  cell.real = value;
  return cell;
}

// The file's one data row (CSV) or object (JSON) holding the cell.
std::string Written(ColumnUnit unit, const CellValue& cell, SummaryFormat format) {
  const fs::path dir = fs::temp_directory_path() / ("summary_cells_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    SummaryWriter w(SummaryTarget{dir.string(), "", format}, "cell", {"V"}, 1);
    w.Cell(unit, cell).EndRow();
  }
  std::ifstream in(dir / (format == SummaryFormat::kCsv ? "cell.csv" : "cell.json"));
  std::stringstream text;
  text << in.rdbuf();
  fs::remove_all(dir);
  const std::string content = text.str();
  const size_t begin = format == SummaryFormat::kCsv ? content.find('\n') + 1 : 2;
  return content.substr(begin, content.find('\n', begin) - begin);
}

std::string Csv(ColumnUnit unit, const CellValue& cell) {
  return Written(unit, cell, SummaryFormat::kCsv);
}

TEST(SummaryCells, MeansAreMicrosOfTheRealNanoseconds) {
  // 1234.5 ns: 1.2345 µs printed with 3 decimals, not the whole 1235 ns.
  EXPECT_EQ(Csv(ColumnUnit::kMeanNanoseconds, Real(1234.5)), "1.234");
  EXPECT_EQ(Csv(ColumnUnit::kNanoseconds, Real(1234.5)), "1.235");
  EXPECT_EQ(Csv(ColumnUnit::kMeanNanoseconds, Real(1000.0 / 3)), "0.333");
  EXPECT_EQ(Csv(ColumnUnit::kMeanNanoseconds, Real(-0.4)), "-0.000");
  EXPECT_EQ(Csv(ColumnUnit::kMeanNanoseconds, analysis::IntegerCell(2500)), "2.500");
  EXPECT_EQ(Written(ColumnUnit::kMeanNanoseconds, Real(1234.5), SummaryFormat::kJson),
            "{\"V\":1.234}");
}

TEST(SummaryCells, DiffRatioWithFourDecimalsOrInf) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Csv(ColumnUnit::kDiffRatio, Real(1.5)), "1.5000");
  EXPECT_EQ(Csv(ColumnUnit::kDiffRatio, Real(2.0 / 3)), "0.6667");
  EXPECT_EQ(Csv(ColumnUnit::kDiffRatio, Real(0)), "0.0000");
  EXPECT_EQ(Csv(ColumnUnit::kDiffRatio, Real(inf)), "inf");
  EXPECT_EQ(Written(ColumnUnit::kDiffRatio, Real(inf), SummaryFormat::kJson), "{\"V\":\"inf\"}");
  EXPECT_EQ(Written(ColumnUnit::kDiffRatio, Real(0.25), SummaryFormat::kJson), "{\"V\":0.2500}");
}

TEST(SummaryCells, OtherUnitsAsBefore) {
  EXPECT_EQ(Csv(ColumnUnit::kNanoseconds, analysis::IntegerCell(-40)), "-0.040");
  EXPECT_EQ(Csv(ColumnUnit::kCount, analysis::IntegerCell(-1)), "-1");
  EXPECT_EQ(Csv(ColumnUnit::kRatio, Real(0.123456)), "0.1235");
  EXPECT_EQ(Csv(ColumnUnit::kPercentage, Real(12.5)), "12.50");
  EXPECT_EQ(Csv(ColumnUnit::kFlag, analysis::IntegerCell(1)), "yes");
  EXPECT_EQ(Csv(ColumnUnit::kCount, CellValue{}), "N/A");
}

}  // namespace
}  // namespace aiprof::exporter
