// The launcher when things go wrong: a crash right after the start, a full disk during
// collection, an output directory removed while the app runs, a program the runtime cannot
// enter. Each keeps what can be kept and says what happened and what to do.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace aiprof::testing {
namespace {
namespace fs = std::filesystem;

class LaunchFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/aiprof_launch_faults_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    out_ = pattern;
  }
  void TearDown() override {
    if (mounted_) umount2(out_.c_str(), MNT_DETACH);
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(out_, ec);
  }
  static std::string App() { return BuildDir() + "/bin/launch_test_app"; }
  std::vector<fs::path> ProfDirs() const {
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(out_)) {
      if (entry.path().filename().string().rfind("PROF_", 0) == 0) dirs.push_back(entry.path());
    }
    return dirs;
  }
  static nlohmann::json Info(const fs::path& dir) {
    std::ifstream in(dir / "info.json");
    return nlohmann::json::parse(in, nullptr, false);
  }
  std::vector<std::string> FilesNamed(const std::string& suffix) const {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(out_)) {
      if (entry.path().filename().string().ends_with(suffix)) found.push_back(entry.path());
    }
    return found;
  }

  std::string out_;
  bool mounted_ = false;
};

// A crash 300 ms after the start, before the first regular flush (1 s): the first data is
// written 50 ms after the window opens, so the directory, its records and the exit status
// survive.
TEST_F(LaunchFaultsTest, CrashRightAfterTheStartKeepsTheFirstDataAndTheExitStatus) {
  CommandResult result =
      RunAiprof("--output=" + out_ + " --export=off --msproftx=on " + App() + " segv-early 300");
  EXPECT_EQ(result.exit_code, 128 + SIGSEGV) << result.output;
  std::vector<fs::path> dirs = ProfDirs();
  ASSERT_EQ(dirs.size(), 1u) << result.output;
  nlohmann::json info = Info(dirs[0]);
  ASSERT_TRUE(info.is_object());
  EXPECT_EQ(info["exit_status"]["signal"], SIGSEGV);
  EXPECT_EQ(result.output.find("statically linked"), std::string::npos) << result.output;
  CommandResult exported = RunAiprof("export --output=" + dirs[0].string());
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_EQ(exported.output.find(" 0 slices"), std::string::npos) << exported.output;
}

// Disk full during collection: the job runs on, what could not be written is counted and
// shown by the export, info.json has the exit status and stop reason, and no temporary file
// is left. On a 1 MiB tmpfs (needs root; skipped otherwise).
TEST_F(LaunchFaultsTest, DiskFullIsCountedAndShownAndLeavesNoTemporaryFiles) {
  if (mount("tmpfs", out_.c_str(), "tmpfs", 0, "size=1m,mode=0755") != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  }
  mounted_ = true;
  CommandResult result =
      RunAiprof("--output=" + out_ + " --export=off --msproftx=on " + App() + " flood 200000");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("profiling disabled"), std::string::npos) << result.output;
  std::vector<fs::path> dirs = ProfDirs();
  ASSERT_EQ(dirs.size(), 1u) << result.output;
  nlohmann::json info = Info(dirs[0]);
  ASSERT_TRUE(info.is_object()) << result.output;
  EXPECT_EQ(info["exit_status"]["code"], 0);
  EXPECT_EQ(info["stop_reason"], "exit");
  ASSERT_TRUE(info["write_failure"].is_object()) << info.dump(2);
  const uint64_t lost = info["write_failure"]["events_lost"].get<uint64_t>();
  EXPECT_GT(lost, 0u);
  EXPECT_GE(info["drops"]["total"].get<uint64_t>(), lost);
  EXPECT_EQ(FilesNamed(".tmp"), std::vector<std::string>{});
  EXPECT_EQ(FilesNamed(".reserve.launcher"), std::vector<std::string>{});

  // With room again, the export shows the loss.
  ASSERT_EQ(mount("tmpfs", out_.c_str(), "tmpfs", MS_REMOUNT, "size=256m"), 0);
  CommandResult exported = RunAiprof("export --output=" + dirs[0].string());
  EXPECT_NE(exported.output.find("collection stopped early: writing the raw data failed"),
            std::string::npos)
      << exported.output;
  EXPECT_EQ(exported.output.find(" 0 dropped events"), std::string::npos) << exported.output;
}

TEST_F(LaunchFaultsTest, RemovedOutputDirectoryIsNamedAsTheReason) {
  const std::string output = out_ + "/gone";
  const std::string program = BuildDir() + "/bin/static_test_app";
  if (!fs::exists(program)) GTEST_SKIP() << "no static libc to build static_test_app";
  // The app removes the output directory (a cleanup script would), then becomes a program the
  // runtime does not enter: nothing could be kept, and the launcher says why.
  CommandResult result =
      RunShell(BuildDir() + "/bin/aiprof --output=" + output + " --export=off sh -c 'rm -rf " +
               output + "; exec " + program + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("was removed while the app ran"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("statically linked"), std::string::npos) << result.output;
}

TEST_F(LaunchFaultsTest, StaticallyLinkedProgramIsNamedAsTheReason) {
  const std::string program = BuildDir() + "/bin/static_test_app";
  if (!fs::exists(program)) GTEST_SKIP() << "no static libc to build static_test_app";
  CommandResult result = RunAiprof("--output=" + out_ + " --export=off " + program);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("is statically linked"), std::string::npos) << result.output;
}

TEST_F(LaunchFaultsTest, EmptyOutputValueIsAnErrorNotTheProgram) {
  CommandResult result = RunAiprof("--output= --export=off " + App() + " exit 0");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--output"), std::string::npos) << result.output;
  EXPECT_TRUE(ProfDirs().empty());
}

}  // namespace
}  // namespace aiprof::testing
