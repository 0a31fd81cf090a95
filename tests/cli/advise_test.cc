// End to end: the sample C++ training job (examples/train) profiled by `aiprof`, then
// `aiprof advise`: two runs of an imbalanced job given as two ranks must name the slow
// rank, a job starved by its loader must get the data-loading advice; the report files,
// plain output off a terminal, bad input, and `aiprof export`'s advice.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_runner.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using testing::BuildDir;
using testing::RunAiprof;
using testing::RunShell;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const nlohmann::json* FindingOf(const nlohmann::json& advice, const std::string& rule) {
  for (const nlohmann::json& finding : advice["findings"]) {
    if (finding["rule"] == rule) return &finding;
  }
  return nullptr;
}

class AdviseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("aiprof_advise_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    const std::string train = BuildDir() + "/bin/examples/train";
    if (!fs::exists(train)) return;
    // Ranks 0 and 1 of an imbalanced job: rank 1's model is four times wider. The loaders
    // may run ahead of the trainer (--prefetch=steps), so only compute differs.
    for (const char* rank : {"0", "1"}) {
      auto run = RunShell(
          "RANK=" + std::string(rank) + " " + BuildDir() +
          "/bin/aiprof --export=off --msproftx=on --output=" + (root_ / "ranks" / rank).string() +
          " " + train + " --steps=20 --prefetch=20" +
          (std::string(rank) == "1" ? " --hidden=512" : ""));
      ASSERT_EQ(run.exit_code, 0) << run.output;
    }
    auto slow = RunAiprof("--export=off --msproftx=on --output=" + (root_ / "slow").string() + " " +
                          train + " --steps=10 --slow-loader=20");
    ASSERT_EQ(slow.exit_code, 0) << slow.output;
    built_ = true;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    if (!built_) GTEST_SKIP() << "examples/train not built";
  }

  static inline fs::path root_;
  static inline bool built_ = false;
};

TEST_F(AdviseTest, TwoRanksOfAnImbalancedJobNameTheSlowRank) {
  const fs::path ranks = root_ / "ranks";
  auto result =
      RunAiprof("advise --output=" + (ranks / "0").string() + "," + (ranks / "1").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("rank 1 is the slow rank: computing"), std::string::npos)
      << result.output;
  // Not a terminal: no colour codes.
  EXPECT_EQ(result.output.find("\033["), std::string::npos);
  // A report over several outputs goes next to them.
  const fs::path json = ranks / "aiprof_output" / "analysis" / "advice.json";
  ASSERT_TRUE(fs::exists(json)) << result.output;
  nlohmann::json advice = nlohmann::json::parse(ReadText(json));
  EXPECT_EQ(advice["profiles"], (nlohmann::json{"rank 0", "rank 1"}));
  const nlohmann::json* slow_rank = FindingOf(advice, "slow_rank");
  ASSERT_NE(slow_rank, nullptr);
  EXPECT_EQ((*slow_rank)["status"], "triggered");
  EXPECT_EQ((*slow_rank)["severity"], "high");
  EXPECT_EQ(advice["step_times"].size(), 2u);
  const std::string html = ReadText(ranks / "aiprof_output" / "analysis" / "advice.html");
  EXPECT_NE(html.find("rank 1 is the slow rank"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  // Standalone: nothing is fetched.
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST_F(AdviseTest, SlowLoaderGetsTheDataLoadingAdviceFirst) {
  const fs::path slow = root_ / "slow";
  const fs::path report = root_ / "slow_report";
  auto result = RunAiprof("advise --output=" + slow.string() + " --report-dir=" + report.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  nlohmann::json advice = nlohmann::json::parse(ReadText(report / "advice.json"));
  const nlohmann::json& first = advice["findings"][0];
  EXPECT_EQ(first["rule"], "data_loading") << result.output;
  EXPECT_EQ(first["severity"], "high");
  // Rules without their data say so.
  const nlohmann::json* memory = FindingOf(advice, "memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ((*memory)["status"], "not evaluated");
  EXPECT_NE(result.output.find("n/a  memory: not evaluated: no memory records"), std::string::npos)
      << result.output;
}

TEST_F(AdviseTest, ConfigOverridesAThreshold) {
  const fs::path config = root_ / "thresholds.json";
  std::ofstream(config) << R"({"data_loading": {"step_share": 0.99}})";
  auto result =
      RunAiprof("advise --output=" + (root_ / "slow").string() + " --config=" + config.string() +
                " --report-dir=" + (root_ / "config_report").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  nlohmann::json advice = nlohmann::json::parse(ReadText(root_ / "config_report" / "advice.json"));
  const nlohmann::json* data = FindingOf(advice, "data_loading");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["status"], "passed");
  EXPECT_EQ((*data)["thresholds"][0]["value"], 0.99);
}

TEST_F(AdviseTest, BadInputIsAUsageError) {
  const fs::path config = root_ / "bad.json";
  std::ofstream(config) << R"({"data_loading": {"share": 0.1}})";
  auto unknown =
      RunAiprof("advise --output=" + (root_ / "slow").string() + " --config=" + config.string());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown threshold 'data_loading.share'"), std::string::npos)
      << unknown.output;
  auto missing_config = RunAiprof("advise --output=" + (root_ / "slow").string() +
                                  " --config=" + (root_ / "none.json").string());
  EXPECT_EQ(missing_config.exit_code, 2);
  EXPECT_NE(missing_config.output.find("cannot be read"), std::string::npos);
  auto missing_dir = RunAiprof("advise --output=" + (root_ / "nothing_here").string());
  EXPECT_EQ(missing_dir.exit_code, 2) << missing_dir.output;
}

TEST_F(AdviseTest, ExportWritesAdviceJson) {
  auto result = RunAiprof("export --output=" + (root_ / "slow").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  fs::path json;
  for (const auto& entry : fs::recursive_directory_iterator(root_ / "slow")) {
    if (entry.path().filename() == "advice.json") json = entry.path();
  }
  ASSERT_FALSE(json.empty()) << result.output;
  EXPECT_NE(result.output.find(json.string()), std::string::npos) << result.output;
  nlohmann::json advice = nlohmann::json::parse(ReadText(json));
  const nlohmann::json* data = FindingOf(advice, "data_loading");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["status"], "triggered");
}

}  // namespace
}  // namespace aiprof
