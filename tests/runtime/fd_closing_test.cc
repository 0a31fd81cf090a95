// A job that closes every descriptor above 2 and opens its own files (fd_closing_job.c):
// the runtime never writes into them, and its profile is complete. Each run's files are
// compared byte for byte with those of the same job run without profiling.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "runtime/raw_data.h"

namespace aiprof::testing {
namespace {

using format::RecordKind;

constexpr int kRangesPerThread = 20000;
constexpr int kFiles = 15;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs the job in `dir`; returns what it printed (the ranges it recorded).
std::string RunJob(const std::string& dir, const std::string& mode,
                   const std::vector<std::string>& environment) {
  Child job =
      Spawn({BuildDir() + "/bin/fd_closing_job", dir, mode, std::to_string(kRangesPerThread)},
            environment);
  std::string printed = ReadAll(job.stdout_fd);
  int status = Wait(job.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << mode << " status " << status;
  return printed;
}

TEST(FdClosingJob, TwentyRunsLeaveTheJobsFilesIntactAndTheProfileComplete) {
  const std::string unprofiled = MakeTempDir("fd_closing_reference");
  RunJob(unprofiled, "close", {});
  std::vector<std::string> expected;
  for (int file = 0; file < kFiles; ++file) {
    expected.push_back(ReadFile(unprofiled + "/keep_" + std::to_string(file) + ".txt"));
    ASSERT_EQ(expected.back(), "keep_" + std::to_string(file) + " ok\n");
  }
  const char* modes[] = {"close", "close_range", "closefrom", "dup2"};
  for (int run = 0; run < 20; ++run) {
    const std::string mode = modes[run % 4];
    SCOPED_TRACE("run " + std::to_string(run) + " (" + mode + ")");
    const std::string dir = MakeTempDir("fd_closing");
    // A short flush interval: the writer writes (and the producers poke it) while the job's
    // files hold the runtime's old descriptor numbers.
    std::string printed = RunJob(dir, mode, {Options(dir, ",\"flush_interval_ms\":2")});
    EXPECT_EQ(printed, std::to_string(2 * kRangesPerThread) + "\n");
    for (int file = 0; file < kFiles; ++file) {
      EXPECT_EQ(ReadFile(dir + "/keep_" + std::to_string(file) + ".txt"), expected[file])
          << "keep_" << file << ".txt";
    }
    std::vector<std::string> prof_dirs = ProfDirs(dir);
    ASSERT_EQ(prof_dirs.size(), 1u);
    RawData data = LoadRawFile(RuntimeDataFile(prof_dirs[0]));
    ASSERT_TRUE(data.opened) << data.error;
    EXPECT_TRUE(data.report.clean()) << data.report.Summary();
    EXPECT_EQ(data.Count(RecordKind::kRangeStart), 2u * kRangesPerThread);
    EXPECT_EQ(data.Count(RecordKind::kRangeEnd), 2u * kRangesPerThread);
    EXPECT_EQ(data.TotalDrops(), 0u);
    nlohmann::json info = ReadInfoJson(prof_dirs[0]);
    EXPECT_EQ(info["stop_reason"], "exit");
    EXPECT_GT(info.value("raw_file_reopened", 0), 0) << "the job never closed the raw file";
  }
}

}  // namespace
}  // namespace aiprof::testing
