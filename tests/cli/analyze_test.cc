// End to end: the sample C++ training job (examples/train) profiled by `aiprof`, then
// `aiprof analyze` and `aiprof export`; the analysis outputs must agree with each other.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using testing::BuildDir;
using testing::RunAiprof;

constexpr int kSteps = 12;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::vector<std::string>> ReadCsv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(ReadText(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// One profile of the training job shared by the tests of this suite.
class AnalyzeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aiprof_analyze_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    std::string train = BuildDir() + "/bin/examples/train";
    if (!fs::exists(train)) return;
    auto collected = RunAiprof("--output=" + root_.string() + " --msproftx=on " + train +
                               " --steps=" + std::to_string(kSteps));
    ASSERT_EQ(collected.exit_code, 0) << collected.output;
    for (const auto& entry : fs::directory_iterator(root_)) prof_ = entry.path();
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    if (prof_.empty()) GTEST_SKIP() << "examples/train not built";
  }
  static fs::path AnalysisDir() { return prof_ / "aiprof_output" / "analysis"; }

  static fs::path root_, prof_;
};
fs::path AnalyzeTest::root_, AnalyzeTest::prof_;

TEST_F(AnalyzeTest, ReportAndStepTraceTimeOfTheTrainingJob) {
  auto result = RunAiprof("analyze --output=" + prof_.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string& report = result.output;
  EXPECT_NE(report.find("CPU-only run: compute = marker ranges"), std::string::npos) << report;
  EXPECT_NE(report.find("steps from step records (prof.step / aiprofStepBegin) (12)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("all 12 step(s)"), std::string::npos) << report;
  EXPECT_NE(report.find("top marker ranges by total time"), std::string::npos) << report;

  auto rows = ReadCsv(AnalysisDir() / "step_trace_time.csv");
  ASSERT_EQ(rows.size(), kSteps + 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{
                         "Device_id", "Step", "Computing", "Communication(Not Overlapped)",
                         "Overlapped", "Communication", "Free", "Stage", "Bubble",
                         "Communication(Not Overlapped and Exclude Receive)", "Preparing"}));
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 11u);
    EXPECT_EQ(rows[i][0].rfind("host:", 0), 0u);
    EXPECT_EQ(rows[i][1], std::to_string(i - 1));
    double computing = std::stod(rows[i][2]), free = std::stod(rows[i][6]);
    double stage = std::stod(rows[i][7]), preparing = std::stod(rows[i][10]);
    EXPECT_GT(computing, 0.0);              // forward, backward and optimizer ranges
    EXPECT_EQ(std::stod(rows[i][5]), 0.0);  // no communication in this job
    // Stage = Computing + Communication(Not Overlapped) + Free − Bubble, to the µs decimals.
    EXPECT_NEAR(stage, computing + free, 0.0015);
    // The step begins by waiting for its batch (data_wait is not compute).
    EXPECT_GT(preparing, 0.0);
  }
}

TEST_F(AnalyzeTest, TimelineLanesDbTablesAndCsvAgree) {
  auto exported = RunAiprof("export --output=" + prof_.string() + " --clear=on");
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  auto overlap = ReadCsv(AnalysisDir() / "overlap_analysis.csv");
  ASSERT_EQ(overlap.size(), 2u);
  ASSERT_EQ(overlap[0][6], "Computing(us)");
  ASSERT_EQ(overlap[0][10], "Free(us)");

  fs::path timeline;
  for (const auto& entry : fs::directory_iterator(prof_ / "aiprof_output")) {
    if (entry.path().filename().string().rfind("trace_view_", 0) == 0) timeline = entry.path();
  }
  ASSERT_FALSE(timeline.empty());
  auto trace = nlohmann::json::parse(ReadText(timeline));
  int64_t overlap_pid = -1;
  std::map<std::string, int64_t> lane_ns;
  std::map<int64_t, std::string> thread_names;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name" &&
        event["args"]["name"] == "Overlap Analysis") {
      overlap_pid = event["pid"];
    }
  }
  ASSERT_GE(overlap_pid, 0);
  for (const auto& event : trace["traceEvents"]) {
    if (event["pid"] != overlap_pid) continue;
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      thread_names[event["tid"]] = event["args"]["name"];
    }
    if (event["ph"] == "X") {
      EXPECT_EQ(event["cat"], "overlap_analysis");
      lane_ns[event["name"]] += std::llround(event["dur"].get<double>() * 1000);
    }
  }
  EXPECT_EQ(thread_names, (std::map<int64_t, std::string>{{0, "Computing"},
                                                          {1, "Communication"},
                                                          {2, "Communication(Not Overlapped)"},
                                                          {3, "Free"}}));
  auto micros = [](const std::string& text) { return std::llround(std::stod(text) * 1000); };
  EXPECT_EQ(lane_ns["Computing"], micros(overlap[1][6]));
  EXPECT_EQ(lane_ns["Free"], micros(overlap[1][10]));

  auto db = RunAiprof("analyze --type=db --output=" + prof_.string());
  ASSERT_EQ(db.exit_code, 0) << db.output;
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open((AnalysisDir() / "analysis.db").c_str(), &handle), SQLITE_OK);
  auto count = [&](const char* sql) {
    sqlite3_stmt* statement = nullptr;
    int64_t value = -1;
    if (sqlite3_prepare_v2(handle, sql, -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_int64(statement, 0);
    }
    sqlite3_finalize(statement);
    return value;
  };
  EXPECT_EQ(count("SELECT COUNT(*) FROM StepTraceTime"), kSteps);
  EXPECT_EQ(count("SELECT SUM(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 0"),
            lane_ns["Computing"]);
  EXPECT_EQ(count("SELECT COUNT(*) FROM ANALYSIS_INPUTS WHERE name = 'step_source'"), 1);
  sqlite3_close(handle);
}

TEST_F(AnalyzeTest, IterationSelectionAndBadInput) {
  auto one = RunAiprof("analyze --iteration-id=3-4 --output=" + prof_.string());
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("all 2 step(s)"), std::string::npos) << one.output;
  auto rows = ReadCsv(AnalysisDir() / "step_trace_time.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "3");
  EXPECT_EQ(rows[2][1], "4");

  auto missing = RunAiprof("analyze --output=" + (root_ / "nothing_here").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("aiprof analyze: "), std::string::npos) << missing.output;
  auto no_step = RunAiprof("analyze --iteration-id=999 --output=" + prof_.string());
  EXPECT_EQ(no_step.exit_code, 2) << no_step.output;
}

}  // namespace
}  // namespace aiprof
