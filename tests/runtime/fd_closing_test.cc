// A job that closes every descriptor above 2 and opens its own files (fd_closing_job.c):
// neither the runtime nor a plugin (CPU sampling's perf events) ever writes into, ioctl()s
// or closes them, and the profile is complete. Each run's files are compared byte for byte
// with those of the same job run without profiling.
#include <gtest/gtest.h>

#include <cstring>
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

// The files the job wrote in `dir` hold exactly what it wrote ("keep_<n> ok\n").
void ExpectTheJobsFilesIntact(const std::string& dir) {
  for (int file = 0; file < kFiles; ++file) {
    EXPECT_EQ(ReadFile(dir + "/keep_" + std::to_string(file) + ".txt"),
              "keep_" + std::to_string(file) + " ok\n")
        << "keep_" << file << ".txt";
  }
}

// The raw data of the one profile in `dir`, checked readable in full and without drops.
RawData CompleteProfileOf(const std::string& dir, std::string* prof_dir) {
  std::vector<std::string> prof_dirs = ProfDirs(dir);
  if (prof_dirs.size() != 1) {
    ADD_FAILURE() << prof_dirs.size() << " profiles in " << dir;
    return {};
  }
  *prof_dir = prof_dirs[0];
  RawData data = LoadRawFile(RuntimeDataFile(*prof_dir));
  EXPECT_TRUE(data.opened) << data.error;
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  EXPECT_EQ(data.TotalDrops(), 0u);
  return data;
}

TEST(FdClosingJob, TwentyRunsLeaveTheJobsFilesIntactAndTheProfileComplete) {
  const std::string unprofiled = MakeTempDir("fd_closing_reference");
  RunJob(unprofiled, "close", {});
  ExpectTheJobsFilesIntact(unprofiled);
  const char* modes[] = {"close", "close_range", "closefrom", "dup2"};
  for (int run = 0; run < 20; ++run) {
    const std::string mode = modes[run % 4];
    SCOPED_TRACE("run " + std::to_string(run) + " (" + mode + ")");
    const std::string dir = MakeTempDir("fd_closing");
    // A short flush interval: the writer writes (and the producers poke it) while the job's
    // files hold the runtime's old descriptor numbers.
    std::string printed = RunJob(dir, mode, {Options(dir, ",\"flush_interval_ms\":2")});
    EXPECT_EQ(printed, std::to_string(2 * kRangesPerThread) + "\n");
    ExpectTheJobsFilesIntact(dir);
    std::string prof_dir;
    RawData data = CompleteProfileOf(dir, &prof_dir);
    if (prof_dir.empty()) continue;
    EXPECT_EQ(data.Count(RecordKind::kRangeStart), 2u * kRangesPerThread);
    EXPECT_EQ(data.Count(RecordKind::kRangeEnd), 2u * kRangesPerThread);
    nlohmann::json info = ReadInfoJson(prof_dir);
    EXPECT_EQ(info["stop_reason"], "exit");
    EXPECT_GT(info.value("raw_file_reopened", 0), 0) << "the job never closed the raw file";
  }
}

// The job's main thread's samples after its last close (FD_CLOSING_JOB_SAMPLED: it ran on
// the CPU and blocked then), on-CPU and blocking (off-CPU) ones, and before it.
struct SamplesAroundLastClose {
  uint64_t on_cpu_after = 0;
  uint64_t off_cpu_after = 0;
  uint64_t off_cpu_before = 0;
};

SamplesAroundLastClose CountMainThreadSamples(const RawData& data, uint64_t last_close_ns) {
  SamplesAroundLastClose counts;
  for (const Record& record : data.records) {
    if (record.kind != static_cast<uint8_t>(format::CpuRecordKind::kCpuSample)) continue;
    if (record.ext.empty()) continue;
    format::CpuSampleHeader sample;
    std::memcpy(&sample, &record.ext[0], sizeof(sample));
    if (sample.tid != sample.pid) continue;
    const bool off_cpu = (record.aux & format::kCpuSampleOffCpu) != 0;
    if (record.ts <= last_close_ns) {
      counts.off_cpu_before += off_cpu ? 1 : 0;
    } else {
      (off_cpu ? counts.off_cpu_after : counts.on_cpu_after) += 1;
    }
  }
  return counts;
}

// `aiprof analyze` shows the sampler's reopenings under its mode line, and one process as one.
void ExpectReopeningsInTheReport(const std::string& prof_dir) {
  Child analyze = Spawn({BuildDir() + "/bin/aiprof", "analyze", prof_dir}, {});
  const std::string report = ReadAll(analyze.stdout_fd);
  const int status = Wait(analyze.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report;
  const size_t mode = report.find("CPU sampling: ");
  ASSERT_NE(mode, std::string::npos) << report;
  const std::string mode_line = report.substr(mode, report.find('\n', mode) - mode);
  EXPECT_EQ(mode_line.find("processes"), std::string::npos) << mode_line;
  EXPECT_NE(report.find("sampling descriptors", mode), std::string::npos) << report;
  EXPECT_NE(report.find("; reopened for ", mode), std::string::npos) << report;
}

// With CPU sampling on, the job's files take the numbers of the plugin's perf events (one
// per thread, CPU and event), and the last round stops the collection while they are open:
// the plugin's stop disables (ioctl) and closes its events, and before plugin.h's descriptor
// API it ioctl()ed and closed the job's files under those numbers (the job's next write
// failed). The job's closes free the events whose last reference was the descriptor (the
// blocking-stack events; a CPU's ring keeps its own event): the sampler opens them again at
// its next flush and says so, so the main thread, which runs and blocks after the last
// close, has on-CPU and blocking samples then (none blocking before the sampler reopened its
// events). Where perf_event_open is refused the sampler runs on timers (no descriptors of
// its own but its /proc reads), and the test says so.
TEST(FdClosingJob, CpuSamplingLeavesTheJobsFilesAloneAndGoesOnAfterItsCloses) {
  const char* modes[] = {"close", "close_range", "closefrom", "dup2"};
  bool perf_ran = false;
  bool reported = false;
  for (int run = 0; run < 8; ++run) {
    const std::string mode = modes[run % 4];
    SCOPED_TRACE("run " + std::to_string(run) + " (" + mode + ")");
    const std::string dir = MakeTempDir("fd_closing_cpu");
    std::string printed =
        RunJob(dir, mode,
               {Options(dir, ",\"flush_interval_ms\":2,\"cpu_sampling\":{\"freq_hz\":999}"),
                "LD_PRELOAD=" + BuildDir() + "/lib/libaiprof.so " + BuildDir() +
                    "/lib/libaiprof_cpusampling.so",
                "FD_CLOSING_JOB_SAMPLED=1"},
               true);
    EXPECT_EQ(printed, std::to_string(2 * kRangesPerThread) + "\n");
    ExpectTheJobsFilesIntact(dir);
    std::string prof_dir;
    RawData data = CompleteProfileOf(dir, &prof_dir);
    if (prof_dir.empty()) continue;
    bool sampled = false;
    bool perf = false;
    int reopened_infos = 0;
    for (const Record& record : data.records) {
      if (record.kind != static_cast<uint8_t>(format::CpuRecordKind::kCpuSamplingInfo)) continue;
      sampled |= record.aux != static_cast<uint16_t>(format::CpuSamplingMode::kNone);
      perf |= record.aux == static_cast<uint16_t>(format::CpuSamplingMode::kPerfEvent);
      if (data.Name(record.arg).find("; reopened") != std::string::npos) ++reopened_infos;
    }
    EXPECT_TRUE(sampled) << "CPU sampling did not run";
    perf_ran |= perf;
    if (perf) {
      const std::string last_close = ReadFile(dir + "/last_close_ns");
      ASSERT_FALSE(last_close.empty()) << "the job wrote no last_close_ns";
      SamplesAroundLastClose counts = CountMainThreadSamples(data, std::stoull(last_close));
      EXPECT_GT(reopened_infos, 0) << "no info says the sampler reopened its events";
      EXPECT_GT(counts.on_cpu_after, 0u) << "no on-CPU sample after the job's last close";
      if (counts.off_cpu_before > 0) {
        EXPECT_GT(counts.off_cpu_after, 0u) << "no blocking stack after the job's last close";
      }
      if (!reported) {
        ExpectReopeningsInTheReport(prof_dir);
        reported = true;
      }
    }
    EXPECT_EQ(ReadInfoJson(prof_dir)["stop_reason"], "stop");
  }
  if (!perf_ran) {
    std::cout << "note: perf_event_open was refused here (perf_event_paranoid, not root): "
                 "the sampler ran on timers, and its perf events were not exercised\n";
  }
}

}  // namespace
}  // namespace aiprof::testing
