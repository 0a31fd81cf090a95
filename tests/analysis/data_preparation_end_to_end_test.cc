// End to end: examples/train runs under the real launcher and runtime, the real parser
// builds the model, and the data-preparation analysis must tell a job starved by its data
// loader (--slow-loader) from one bound by compute.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "analysis/analysis_set.h"
#include "cli/cli_runner.h"
#include "model/parser.h"

namespace aiprof::analysis {
namespace {

namespace fs = std::filesystem;
using aiprof::testing::BuildDir;
using aiprof::testing::RunAiprof;

class DataPreparationEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    train_ = BuildDir() + "/bin/examples/train";
    if (!fs::exists(train_)) GTEST_SKIP() << "examples/train not built";
    char pattern[] = "/tmp/aiprof_data_prep_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    out_ = pattern;
  }
  void TearDown() override {
    if (!out_.empty() && !HasFailure()) fs::remove_all(out_);
  }

  AnalysisSet Profile(const std::string& name, const std::string& train_args) {
    const std::string dir = out_ + "/" + name;
    auto result = RunAiprof("--output=" + dir + " --msproftx=on " + train_ + " " + train_args);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    std::string error;
    std::vector<std::string> prof_dirs = model::FindProfDirs(dir, &error);
    EXPECT_EQ(prof_dirs.size(), 1u) << error;
    if (prof_dirs.empty()) return {};
    model_ = model::ParseProfDir(prof_dirs[0]);
    return RunAnalyses(model_);
  }

  std::string train_, out_;
  model::Model model_;
};

TEST_F(DataPreparationEndToEnd, SlowLoaderShowsALargeShare) {
  // Each batch takes 20 ms more to load: several times what the trainer needs to use it.
  AnalysisSet set = Profile("slow", "--steps=10 --slow-loader=20");
  const DataPreparationResult& r = set.data_preparation;
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"wait ranges", "loader ranges"}));
  ASSERT_EQ(r.steps.size(), 10u);
  EXPECT_GT(r.wait_share(), 0.5) << r.total_wait_ns << " of " << r.total_step_ns;
  EXPECT_TRUE(r.has_queue_view);
  EXPECT_GE(r.empty_queue_steps, 8u);
}

TEST_F(DataPreparationEndToEnd, ComputeBoundJobShowsASmallShare) {
  // The loader may run ahead by every batch, so only the first step can wait for input.
  AnalysisSet set = Profile("compute", "--steps=10 --hidden=1024 --prefetch=10");
  const DataPreparationResult& r = set.data_preparation;
  ASSERT_EQ(r.steps.size(), 10u);
  EXPECT_LT(r.wait_share(), 0.2) << r.total_wait_ns << " of " << r.total_step_ns;
}

}  // namespace
}  // namespace aiprof::analysis
