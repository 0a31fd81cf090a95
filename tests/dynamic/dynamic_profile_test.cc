// dynamic_profile end to end: a real training loop (dp_job) whose steps the test drives,
// and edits of its profiler_config.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "prof_contents.h"
#include "subprocess.h"
#include "temp_dir.h"

namespace aiprof::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DynamicProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_dir_ = dir_.path() + "/config";
    output_ = dir_.path() + "/out";
  }
  void StartJob(std::vector<std::string> env = {}, std::vector<std::string> argv = {}) {
    if (argv.empty()) argv = {BuildDir() + "/bin/dynamic_dp_job"};
    argv.push_back(config_dir_);
    job_ = std::make_unique<Subprocess>(argv, env);
    ASSERT_NE(job_->ReadUntil("ready"), "") << job_->output();
  }
  void Steps(int count) {
    for (int i = 0; i < count; ++i) {
      job_->Write("step\n");
      ASSERT_NE(job_->ReadUntil("stepped " + std::to_string(++steps_done_)), "") << job_->output();
    }
  }
  // Writes the file the way editors do (new file, then rename) so the watcher sees it whole.
  void EditConfig(const std::string& text) {
    std::string temporary = config_dir_ + "/.profiler_config.json.swp";
    std::ofstream(temporary) << text;
    std::rename(temporary.c_str(), (config_dir_ + "/profiler_config.json").c_str());
  }
  std::string LogPath(const std::string& prefix) const {
    for (const auto& entry : std::filesystem::directory_iterator(config_dir_ + "/log")) {
      std::string name = entry.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(".log")) return entry.path().string();
    }
    return "";
  }
  // Waits until the dp log has `count` lines containing `text` (the watcher runs on its own
  // thread).
  bool WaitForLog(const std::string& text, int count = 1) {
    for (int attempt = 0; attempt < 2000; ++attempt) {
      std::string log = Slurp(LogPath("dp_"));
      int found = 0;
      for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
        ++found;
      if (found >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  void FinishJob() {
    job_->CloseStdin();
    EXPECT_EQ(job_->Wait(), 0) << job_->output();
  }

  TempDir dir_;
  std::string config_dir_, output_;
  std::unique_ptr<Subprocess> job_;
  int steps_done_ = 0;
};

TEST_F(DynamicProfileTest, WritesTheTemplateAndLogsNamedAfterHostPidRank) {
  StartJob({"RANK=3"});
  std::string config = Slurp(config_dir_ + "/profiler_config.json");
  EXPECT_NE(config.find("\"active\": 1"), std::string::npos) << config;
  EXPECT_NE(config.find("\"experimental_config\""), std::string::npos);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::string suffix = std::string(host) + "_" + std::to_string(job_->pid()) + "_rank_3.log";
  EXPECT_EQ(LogPath("dp_"), config_dir_ + "/log/dp_" + suffix);
  EXPECT_EQ(LogPath("monitor_dp_"), config_dir_ + "/log/monitor_dp_" + suffix);
  Steps(3);
  FinishJob();
  EXPECT_TRUE(ListProfDirs(output_).empty());  // the template alone collects nothing
  EXPECT_NE(Slurp(LogPath("monitor_dp_")).find("dynamic_profile finished"), std::string::npos);
}

TEST_F(DynamicProfileTest, EditCollectsExactlyActiveStepsFromTheNextStep) {
  StartJob();
  Steps(4);
  EditConfig(R"({"prof_dir": ")" + output_ +
             R"(", "active": 3, "experimental_config": {"msprof_tx": true}})");
  ASSERT_TRUE(WaitForLog("config accepted at step 4"));
  Steps(8);
  FinishJob();
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 1u);
  ProfContents contents = ReadProfDir(dirs[0]);
  EXPECT_EQ(contents.problems, "");
  EXPECT_EQ(contents.step_begins, (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_EQ(contents.step_ends, (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_EQ(contents.marks, (std::vector<std::string>{"work 5", "work 6", "work 7"}));
  EXPECT_NE(Slurp(LogPath("monitor_dp_")).find("modified; applied"), std::string::npos);
}

TEST_F(DynamicProfileTest, StartStepIsHonouredAndASecondEditMakesASecondWindow) {
  StartJob();
  Steps(2);
  EditConfig(R"({"prof_dir": ")" + output_ +
             R"(", "active": 2, "start_step": 8, "experimental_config": {"msprof_tx": true}})");
  ASSERT_TRUE(WaitForLog("config accepted at step 2"));
  Steps(12);
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 1})");
  ASSERT_TRUE(WaitForLog("config accepted at step 14"));
  Steps(3);
  FinishJob();
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(ReadProfDir(dirs[0]).step_begins, (std::vector<uint64_t>{8, 9}));
  EXPECT_EQ(ReadProfDir(dirs[0]).marks, (std::vector<std::string>{"work 8", "work 9"}));
  EXPECT_EQ(ReadProfDir(dirs[1]).step_begins, (std::vector<uint64_t>{15}));
}

TEST_F(DynamicProfileTest, MalformedEditsAreLoggedAndIgnoredAndTheJobCarriesOn) {
  StartJob();
  Steps(1);
  EditConfig("{ \"active\": 2, ");
  ASSERT_TRUE(WaitForLog("is invalid, change ignored: not valid JSON"));
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 0})");
  ASSERT_TRUE(WaitForLog("\"active\" must be an integer >= 1"));
  Steps(3);
  EXPECT_TRUE(ListProfDirs(output_).empty());
  EXPECT_NE(Slurp(LogPath("monitor_dp_")).find("not applied (invalid"), std::string::npos);
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 1})");
  ASSERT_TRUE(WaitForLog("config accepted at step 4"));
  Steps(2);
  FinishJob();
  ASSERT_EQ(ListProfDirs(output_).size(), 1u);
  EXPECT_EQ(ReadProfDir(ListProfDirs(output_)[0]).step_begins, (std::vector<uint64_t>{5}));
}

TEST_F(DynamicProfileTest, RankListRestrictsCollection) {
  StartJob({"RANK=1"});
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "is_rank": true, "rank_list": [0, 2]})");
  ASSERT_TRUE(WaitForLog("rank 1 is not in rank_list"));
  Steps(3);
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "is_rank": true, "rank_list": [1]})");
  ASSERT_TRUE(WaitForLog("config accepted at step 3"));
  Steps(2);
  FinishJob();
  ASSERT_EQ(ListProfDirs(output_).size(), 1u);
}

TEST_F(DynamicProfileTest, StartFromAConfigFileCollectsRightAway) {
  StartJob();
  Steps(2);
  std::string start_config = dir_.path() + "/start_config.json";
  std::ofstream(start_config)
      << R"({"prof_dir": ")" + output_ +
             R"(", "active": 2, "experimental_config": {"msprof_tx": true}})";
  job_->Write("start " + start_config + "\n");
  ASSERT_NE(job_->ReadUntil("start 0"), "") << job_->output();
  Steps(4);
  FinishJob();
  ASSERT_EQ(ListProfDirs(output_).size(), 1u);
  ProfContents contents = ReadProfDir(ListProfDirs(output_)[0]);
  EXPECT_EQ(contents.step_begins, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(contents.marks, (std::vector<std::string>{"work 2", "work 3"}));
}

TEST_F(DynamicProfileTest, PollingFallbackSeesEdits) {
  StartJob({"AIPROF_DP_POLLING=1"});
  EXPECT_TRUE(WaitForLog("polling every 2 s"));
  Steps(1);
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 1})");
  ASSERT_TRUE(WaitForLog("config accepted at step 1; collecting 1 step(s) from step 2"));
  Steps(2);
  FinishJob();
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(ReadProfDir(dirs[0]).step_begins, (std::vector<uint64_t>{2}));
}

TEST_F(DynamicProfileTest, AnalyseExportsTheWindowWithTheAiprofNextToTheLibrary) {
  StartJob();
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 2, "analyse": true})");
  ASSERT_TRUE(WaitForLog("config accepted at step 0"));
  Steps(4);
  ASSERT_TRUE(WaitForLog("analyse: running"));
  ASSERT_TRUE(WaitForLog("finished with exit code")) << Slurp(LogPath("dp_"));
  EXPECT_TRUE(WaitForLog("finished with exit code 0")) << Slurp(LogPath("dp_"));
  FinishJob();
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dirs[0] + "/aiprof_output")) << dirs[0];
}

// The Python module (python/aiprof/dynamic_profile.py) drives the same C API through ctypes.
TEST_F(DynamicProfileTest, PythonInitStepStart) {
  std::string built = BuildDir() + "/python";
  std::string python_path = std::filesystem::exists(built + "/aiprof/__init__.py")
                                ? built
                                : std::string(AIPROF_SOURCE_DIR) + "/python";
  StartJob(
      {"PYTHONPATH=" + python_path, "AIPROF_RUNTIME_LIB=" + BuildDir() + "/lib/libaiprof.so"},
      {"/usr/bin/python3", std::string(AIPROF_SOURCE_DIR) + "/tests/dynamic/dp_python_job.py"});
  EXPECT_TRUE(std::filesystem::exists(config_dir_ + "/profiler_config.json"));
  Steps(2);
  EditConfig(R"({"prof_dir": ")" + output_ + R"(", "active": 2})");
  ASSERT_TRUE(WaitForLog("config accepted at step 2"));
  Steps(3);
  std::string start_config = dir_.path() + "/start_config.json";
  std::ofstream(start_config) << R"({"prof_dir": ")" + output_ + R"(", "active": 1})";
  job_->Write("start " + start_config + "\n");
  ASSERT_NE(job_->ReadUntil("start True"), "") << job_->output();
  Steps(2);
  FinishJob();
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(ReadProfDir(dirs[0]).step_begins, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(ReadProfDir(dirs[1]).step_begins, (std::vector<uint64_t>{5}));
}

}  // namespace
}  // namespace aiprof::testing
