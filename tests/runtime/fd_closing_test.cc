// A job that closes every descriptor above 2 and opens its own files (fd_closing_job.c):
// neither the runtime nor a plugin (CPU sampling's perf events) ever writes into, ioctl()s
// or closes them, and the profile is complete. Each run's files are compared byte for byte
// with those of the same job run without profiling.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "format/records_cpu.h"
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
                   const std::vector<std::string>& environment, bool stop = false) {
  std::vector<std::string> command = {BuildDir() + "/bin/fd_closing_job", dir, mode,
                                      std::to_string(kRangesPerThread)};
  if (stop) command.push_back("stop");
  Child job = Spawn(command, environment);
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

// With CPU sampling on, the job's files take the numbers of the plugin's perf events (one
// per thread, CPU and event), and the last round stops the collection while they are open:
// the plugin's stop disables (ioctl) and closes its events, and before plugin.h's descriptor
// API it ioctl()ed and closed the job's files under those numbers (the job's next write
// failed). Where perf_event_open is refused the sampler runs on timers (no descriptors of
// its own but its /proc reads), and the test says so.
TEST(FdClosingJob, CpuSamplingLeavesTheJobsFilesAlone) {
  const char* modes[] = {"close", "close_range", "closefrom", "dup2"};
  bool perf_ran = false;
  for (int run = 0; run < 8; ++run) {
    const std::string mode = modes[run % 4];
    SCOPED_TRACE("run " + std::to_string(run) + " (" + mode + ")");
    const std::string dir = MakeTempDir("fd_closing_cpu");
    std::string printed =
        RunJob(dir, mode,
               {Options(dir, ",\"flush_interval_ms\":2,\"cpu_sampling\":{\"freq_hz\":999}"),
                "LD_PRELOAD=" + BuildDir() + "/lib/libaiprof.so " + BuildDir() +
                    "/lib/libaiprof_cpusampling.so"},
               true);
    EXPECT_EQ(printed, std::to_string(2 * kRangesPerThread) + "\n");
    for (int file = 0; file < kFiles; ++file) {
      EXPECT_EQ(ReadFile(dir + "/keep_" + std::to_string(file) + ".txt"),
                "keep_" + std::to_string(file) + " ok\n")
          << "keep_" << file << ".txt";
    }
    std::vector<std::string> prof_dirs = ProfDirs(dir);
    ASSERT_EQ(prof_dirs.size(), 1u);
    RawData data = LoadRawFile(RuntimeDataFile(prof_dirs[0]));
    ASSERT_TRUE(data.opened) << data.error;
    EXPECT_TRUE(data.report.clean()) << data.report.Summary();
    EXPECT_EQ(data.TotalDrops(), 0u);
    bool sampled = false;
    for (const Record& record : data.records) {
      if (record.kind != static_cast<uint8_t>(format::CpuRecordKind::kCpuSamplingInfo)) continue;
      sampled = record.aux != static_cast<uint16_t>(format::CpuSamplingMode::kNone);
      perf_ran |= record.aux == static_cast<uint16_t>(format::CpuSamplingMode::kPerfEvent);
    }
    EXPECT_TRUE(sampled) << "CPU sampling did not run";
    EXPECT_EQ(ReadInfoJson(prof_dirs[0])["stop_reason"], "stop");
  }
  if (!perf_ran) {
    std::cout << "note: perf_event_open was refused here (perf_event_paranoid, not root): "
                 "the sampler ran on timers, and its perf events were not exercised\n";
  }
}

}  // namespace
}  // namespace aiprof::testing
