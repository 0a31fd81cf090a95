// End to end: the sample training job (examples/train) profiled twice by `aiprof`, once as
// is and once with one phase deliberately slowed (--slow-op), then `aiprof compare`: a run
// against itself shows no change, against the slowed run the slowed phase ranks first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using testing::BuildDir;
using testing::RunAiprof;
using testing::RunShell;

constexpr int kSteps = 12;
// Each step's optimizer computes 10 ms longer: 120 ms in all, far above the other phases'
// run-to-run noise on a loaded machine (the whole job computes ~1 ms a step).
constexpr const char* kSlowOp = "--slow-op=optimizer:10000";

std::vector<std::vector<std::string>> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
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

size_t Column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

class CompareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aiprof_compare_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    const std::string train = BuildDir() + "/bin/examples/train";
    if (!fs::exists(train)) return;
    for (const auto& [dir, extra] : {std::pair{"base", ""}, std::pair{"slow", kSlowOp}}) {
      auto collected =
          RunAiprof("--output=" + (root_ / dir).string() + " --msproftx=on --export=off " + train +
                    " --steps=" + std::to_string(kSteps) + " " + extra);
      ASSERT_EQ(collected.exit_code, 0) << collected.output;
    }
    base_ = root_ / "base";
    slow_ = root_ / "slow";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    if (base_.empty()) GTEST_SKIP() << "examples/train not built";
  }

  static fs::path root_, base_, slow_;
};
fs::path CompareTest::root_, CompareTest::base_, CompareTest::slow_;

TEST_F(CompareTest, ARunAgainstItselfShowsNoRegression) {
  const fs::path out = root_ / "self";
  auto result =
      RunAiprof("compare " + base_.string() + " " + base_.string() + " -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("no regression"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("\033["), std::string::npos) << "colour on a pipe";

  auto operators = ReadCsv(out / "compare_operators.csv");
  ASSERT_GE(operators.size(), 5u);  // data_wait, forward, backward, optimizer, load_batch
  const size_t change = Column(operators[0], "Change");
  const size_t diff = Column(operators[0], "Diff Total Duration(us)");
  for (size_t r = 1; r < operators.size(); ++r) {
    EXPECT_EQ(operators[r][change], "unchanged") << operators[r][1];
    EXPECT_EQ(operators[r][diff], "0.000") << operators[r][1];
  }
  auto steps = ReadCsv(out / "compare_steps.csv");
  ASSERT_EQ(steps.size(), 1u + kSteps + 1u);  // header, each step pair, the mean
  const size_t step_diff = Column(steps[0], "Diff Step Time(us)");
  for (size_t r = 1; r < steps.size(); ++r) EXPECT_EQ(steps[r][step_diff], "0.000");
  EXPECT_EQ(steps.back()[Column(steps[0], "Base Step")], "mean of " + std::to_string(kSteps));
}

TEST_F(CompareTest, TheSlowedOperatorRanksFirst) {
  auto result = RunAiprof("compare " + base_.string() + " " + slow_.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Default output: beside the new run.
  const fs::path out = slow_ / "aiprof_output" / "compare";
  auto operators = ReadCsv(out / "compare_operators.csv");
  ASSERT_GE(operators.size(), 2u);
  EXPECT_EQ(operators[1][Column(operators[0], "Operator Name")], "optimizer") << result.output;
  EXPECT_EQ(operators[1][Column(operators[0], "Change")], "slower");
  // At least the added work, less what the base's own optimizer calls may have lost to
  // preemption.
  EXPECT_GE(std::stod(operators[1][Column(operators[0], "Diff Total Duration(us)")]),
            kSteps * 10000.0 * 0.5);
  EXPECT_EQ(operators[1][Column(operators[0], "Diff Calls")], "0");
  // The report's first regression is the same.
  const size_t top = result.output.find("top regressions");
  ASSERT_NE(top, std::string::npos) << result.output;
  const size_t first_row = result.output.find("     1  slower", top);
  ASSERT_NE(first_row, std::string::npos) << result.output;
  EXPECT_NE(result.output.substr(first_row, result.output.find('\n', first_row) - first_row)
                .find("optimizer [user_annotation]"),
            std::string::npos)
      << result.output;
  auto steps = ReadCsv(out / "compare_steps.csv");
  ASSERT_EQ(steps.size(), 1u + kSteps + 1u);
  // Longer steps, by less than the added work when the loader paced the base run.
  EXPECT_GT(std::stod(steps.back()[Column(steps[0], "Diff Step Time(us)")]), 0.0);
  EXPECT_TRUE(fs::exists(out / "compare_kernels.csv"));  // a CPU-only run: header only
}

TEST_F(CompareTest, TwoStepsOfOneRunAndAnExportFolderAsASide) {
  const fs::path out = root_ / "steps";
  // The export's own folder names the run it belongs to.
  fs::path prof;
  for (const auto& entry : fs::directory_iterator(base_)) prof = entry.path();
  fs::create_directories(prof / "aiprof_output");
  auto result = RunAiprof("compare " + (prof / "aiprof_output").string() +
                          " --iteration-id=2,5 -o " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("(step 2, 1 step(s)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("(step 5, 1 step(s)"), std::string::npos) << result.output;
  auto steps = ReadCsv(out / "compare_steps.csv");
  ASSERT_EQ(steps.size(), 3u);  // header, the step pair, the mean
  EXPECT_EQ(steps[1][Column(steps[0], "Base Step")], "2");
  EXPECT_EQ(steps[1][Column(steps[0], "Comparison Step")], "5");
  // Each step runs forward once.
  auto operators = ReadCsv(out / "compare_operators.csv");
  ASSERT_FALSE(operators.empty());
  const size_t name = Column(operators[0], "Operator Name");
  bool found = false;
  for (const auto& row : operators) {
    if (row[name] != "forward") continue;
    found = true;
    EXPECT_EQ(row[Column(operators[0], "Base Calls")], "1");
    EXPECT_EQ(row[Column(operators[0], "Comparison Calls")], "1");
  }
  EXPECT_TRUE(found);
}

TEST_F(CompareTest, BadInputIsRejectedWithExitTwo) {
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {(root_ / "missing").string() + " " + slow_.string(), "base run: '"},
      {base_.string() + " " + root_.string() + "/empty_dir", "new run: no PROF_* directory"},
      {base_.string() + " " + slow_.string() + " --iteration-id=99", "no step 99 in the data"},
      {base_.string() + " " + slow_.string() + " --iteration-id=x", "--iteration-id=x"},
      {base_.string() + " " + slow_.string() + " --group-by=module", "--group-by"},
      {base_.string(), "give the new run"},
  };
  fs::create_directories(root_ / "empty_dir");
  for (const Case& c : cases) {
    auto result = RunAiprof("compare " + c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args << "\n" << result.output;
    EXPECT_NE(result.output.find(c.message), std::string::npos) << c.args << "\n" << result.output;
  }
}

// On a terminal the report is coloured, unless NO_COLOR is set (script(1) gives it a pty).
TEST_F(CompareTest, ColourOnATerminalUnlessNoColor) {
  if (RunShell("command -v script").exit_code != 0) GTEST_SKIP() << "script(1) not installed";
  const std::string command = BuildDir() + "/bin/aiprof compare " + base_.string() + " " +
                              slow_.string() + " -o " + (root_ / "tty").string();
  auto coloured = RunShell("script -qec '" + command + "' /dev/null");
  EXPECT_EQ(coloured.exit_code, 0) << coloured.output;
  EXPECT_NE(coloured.output.find("\033[31m"), std::string::npos) << coloured.output;
  auto plain = RunShell("NO_COLOR=1 script -qec '" + command + "' /dev/null");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output.find("\033["), std::string::npos) << plain.output;
}

}  // namespace
}  // namespace aiprof
