// `aiprof compare`'s outputs as its writers spell them, from the comparison's column
// descriptions (analysis/compare/compare_columns.h): compare_operators, compare_kernels and
// compare_steps as CSV and as JSON (--group-by=name and shape) and the terminal report, of a
// hand-built comparison holding every case: added and removed names (an infinite and a zero
// ratio), a name that needs CSV quoting, means that round (1234.5 ns), negative diffs, a
// device and a host scope, step pairs and mean rows. The expected files in testdata/compare/
// were written by the hand-written writers the descriptions replaced (main at 4783676): the
// columns, order, rounding and units must stay byte for byte.
#include "export/compare/compare_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "export/compare/compare_report.h"

namespace aiprof::exporter {
namespace {

namespace fs = std::filesystem;
using analysis::CallStatistics;
using analysis::NameDelta;
using analysis::StepDelta;

CallStatistics Calls(uint64_t calls, int64_t total_ns, int64_t self_ns, int64_t min_ns,
                     int64_t max_ns) {
  CallStatistics s;
  s.calls = calls;
  s.total_ns = total_ns;
  s.self_ns = self_ns;
  s.min_ns = min_ns;
  s.max_ns = max_ns;
  return s;
}

NameDelta Delta(std::string name, std::string type, std::string shape, CallStatistics base,
                CallStatistics comparison) {
  NameDelta d;
  d.name = std::move(name);
  d.type = std::move(type);
  d.input_shape = std::move(shape);
  d.base = base;
  d.comparison = comparison;
  return d;
}

StepDelta Step(int32_t device_id, int32_t rank, bool mean, uint64_t base_step,
               uint64_t comparison_step, double scale) {
  StepDelta s;
  s.device_id = device_id;
  s.rank = rank;
  s.base_pid = device_id >= 0 ? static_cast<uint32_t>(device_id) : 4242;
  s.comparison_pid = device_id >= 0 ? static_cast<uint32_t>(device_id) : 4343;
  s.mean = mean;
  s.base_step = base_step;
  s.comparison_step = comparison_step;
  s.base_steps = mean ? 4 : 1;
  s.comparison_steps = mean ? 2 : 1;
  s.base = {1234.5 * scale, 1000.25 * scale, 0, 10, 200, 24.25};
  s.comparison = {2469.0 * scale, 999.75 * scale, 5 * scale, 0, 1469.25 * scale, 0.4};
  return s;
}

analysis::RunComparison HandBuiltComparison(analysis::CompareGroupBy group_by) {
  analysis::RunComparison c;
  c.options.group_by = group_by;
  c.base.label = "/runs/base";
  c.base.steps = 4;
  c.base.step_source = analysis::StepSource::kMarkerRanges;
  c.base.iterations = model::StepRange{2, 5, false, 0};
  c.comparison.label = "/runs/new";
  c.comparison.steps = 2;
  c.comparison.step_source = analysis::StepSource::kMarkerRanges;
  c.comparison.device_run = true;
  c.comparison.dropped_records = 7;
  const bool shapes = group_by == analysis::CompareGroupBy::kNameAndShape;
  c.operators = {
      Delta("aten::gelu", "cpu_op", shapes ? "4,64;" : "", {}, Calls(3, 1000, 900, 300, 400)),
      Delta("aten::mm", "cpu_op", shapes ? "32,64;64,8" : "", Calls(2, 400, 400, 100, 300),
            Calls(2, 600, 550, 100, 500)),
      Delta("my \"op\", v2", "user_annotation", "", Calls(2, 2469, 2469, 1, 2468),
            Calls(2, 2469, 2000, 1234, 1235)),
      Delta("aten::relu", "cpu_op", shapes ? "4,16" : "", Calls(1, 40, 40, 40, 40), {}),
  };
  c.kernels = {
      Delta("gemm_kernel", "kernel", "", Calls(3, 1200000, 1200000, 390000, 410000),
            Calls(3, 1800001, 1800001, 590000, 610001)),
      Delta("Memcpy HtoD", "gpu_memcpy", "", Calls(3, 10, 10, 3, 4), Calls(2, 7, 7, 3, 4)),
  };
  c.steps = {Step(0, 1, false, 3, 5, 1), Step(0, 1, true, 0, 0, 1.5), Step(-1, -1, false, 7, 7, 2),
             Step(-1, -1, true, 0, 0, 0.5)};
  c.notes = {"the base covers 4 step(s), the comparison 2"};
  return c;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// AIPROF_WRITE_COMPARE_TESTDATA=1 writes the expected files instead of reading them.
void ExpectFile(const std::string& name, const std::string& actual) {
  const fs::path expected = fs::path(AIPROF_COMPARE_TESTDATA) / name;
  if (std::getenv("AIPROF_WRITE_COMPARE_TESTDATA") != nullptr) {
    std::ofstream(expected, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, ReadFile(expected)) << name;
}

class CompareFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aiprof_compare_files_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void ExpectFiles(analysis::CompareGroupBy group_by, SummaryFormat format,
                   const std::string& suffix) {
    std::vector<std::string> written, errors;
    const SummaryTarget target{dir_.string(), "", format, &written, &errors};
    WriteCompareFiles(HandBuiltComparison(group_by), target);
    EXPECT_TRUE(errors.empty());
    ASSERT_EQ(written.size(), 3u);
    const std::string extension = format == SummaryFormat::kCsv ? ".csv" : ".json";
    for (const char* file : {"compare_operators", "compare_kernels", "compare_steps"}) {
      ExpectFile(file + suffix + extension, ReadFile(dir_ / (file + extension)));
    }
  }

  fs::path dir_;
};

TEST_F(CompareFilesTest, CsvFilesByName) {
  ExpectFiles(analysis::CompareGroupBy::kName, SummaryFormat::kCsv, "");
}

TEST_F(CompareFilesTest, CsvFilesByNameAndShape) {
  ExpectFiles(analysis::CompareGroupBy::kNameAndShape, SummaryFormat::kCsv, "_shape");
}

TEST_F(CompareFilesTest, JsonFilesByName) {
  ExpectFiles(analysis::CompareGroupBy::kName, SummaryFormat::kJson, "");
}

TEST_F(CompareFilesTest, JsonFilesByNameAndShape) {
  ExpectFiles(analysis::CompareGroupBy::kNameAndShape, SummaryFormat::kJson, "_shape");
}

TEST_F(CompareFilesTest, Report) {
  std::ostringstream out;
  PrintCompareReport(HandBuiltComparison(analysis::CompareGroupBy::kNameAndShape),
                     TerminalStyle(false), out);
  ExpectFile("report.txt", out.str());
}

}  // namespace
}  // namespace aiprof::exporter
