// Exports of one PROF_* directory, one at a time: a second export waits for the first and
// says so, removes what an interrupted export left, and never reuses its file names.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "cli/cli_runner.h"

namespace aiprof::testing {
namespace {
namespace fs = std::filesystem;

class ExportLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/aiprof_export_lock_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    out_ = pattern;
    CommandResult collected = RunAiprof("--output=" + out_ + " --export=off --msproftx=on " +
                                        BuildDir() + "/bin/launch_test_app exit 0");
    ASSERT_EQ(collected.exit_code, 0) << collected.output;
    for (const auto& entry : fs::directory_iterator(out_)) prof_ = entry.path();
    ASSERT_FALSE(prof_.empty());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(out_, ec);
  }
  size_t Count(const std::string& prefix) const {
    size_t count = 0;
    for (const auto& entry : fs::directory_iterator(prof_ / "aiprof_output")) {
      count += entry.path().filename().string().starts_with(prefix);
    }
    return count;
  }

  std::string out_;
  fs::path prof_;
};

// Whether some process waits for a lock on the file with inode `inode` (/proc/locks lists
// waiters with "->").
bool SomeoneWaitsFor(ino_t inode) {
  std::ifstream locks("/proc/locks");
  std::string line;
  const std::string suffix = ":" + std::to_string(inode) + " ";
  while (std::getline(locks, line)) {
    if (line.find("->") != std::string::npos && (line + " ").find(suffix) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST_F(ExportLockTest, ASecondExportWaitsSaysSoAndRemovesLeftovers) {
  fs::create_directories(prof_ / "aiprof_output");
  std::ofstream(prof_ / "aiprof_output" / "trace_view_1.json.tmp") << "half an export";
  const std::string lock_path = (prof_ / ".export.lock").string();
  int held = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX), 0);  // an export in progress
  struct stat info {};
  ASSERT_EQ(fstat(held, &info), 0);
  std::future<CommandResult> second = std::async(
      std::launch::async, [&] { return RunAiprof("export --output=" + prof_.string()); });
  bool waiting = false;
  for (int attempt = 0; attempt < 3000 && !waiting; ++attempt) {
    waiting = SomeoneWaitsFor(info.st_ino);
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(waiting) << "the second export did not wait for the lock";
  EXPECT_TRUE(fs::exists(prof_ / "aiprof_output" / "trace_view_1.json.tmp"));
  flock(held, LOCK_UN);
  close(held);
  CommandResult result = second.get();
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("another export of " + prof_.string() + " is running"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(prof_ / "aiprof_output" / "trace_view_1.json.tmp"));
}

TEST_F(ExportLockTest, TwoExportsAtOnceKeepBothResults) {
  std::future<CommandResult> first = std::async(
      std::launch::async, [&] { return RunAiprof("export --output=" + prof_.string()); });
  std::future<CommandResult> second = std::async(std::launch::async, [&] {
    return RunAiprof("export --output=" + prof_.string() + " --type=text");
  });
  CommandResult a = first.get(), b = second.get();
  EXPECT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(Count("trace_view_"), 2u) << a.output << b.output;
}

}  // namespace
}  // namespace aiprof::testing
