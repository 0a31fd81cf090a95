// The runtime seen from outside: programs started with AIPROF_OPTIONS (and LD_PRELOAD for
// NVTX), flush at exit and on SIGTERM, data after SIGKILL, memory bounded by the cap.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "runtime/child_process.h"
#include "runtime/raw_data.h"

extern char** environ;

namespace aiprof::testing {
namespace {

using format::RecordKind;

RawData OnlyRun(const std::string& output, std::string* prof_dir = nullptr) {
  std::vector<std::string> dirs = ProfDirs(output);
  EXPECT_EQ(dirs.size(), 1u) << output;
  if (dirs.empty()) return {};
  if (prof_dir != nullptr) *prof_dir = dirs[0];
  return LoadRawFile(RuntimeDataFile(dirs[0]));
}

TEST(ProcessTest, NvtxProgramIsCapturedUnderLdPreload) {
  std::string program = BuildDir() + "/bin/nvtx_sample";
  if (access(program.c_str(), X_OK) != 0) GTEST_SKIP() << "nvtx_sample not built (no NVTX headers)";
  std::string output = MakeTempDir("nvtx");
  Child child = Spawn({program, "20", "3"},
                      {Options(output), "LD_PRELOAD=" + BuildDir() + "/lib/libaiprof.so"});
  ReadAll(child.stdout_fd);
  int status = Wait(child.pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  RawData data = OnlyRun(output);
  ASSERT_TRUE(data.opened);
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  std::map<uint32_t, std::vector<std::string>> stacks;  // per-thread open ranges
  std::map<uint32_t, int> pushes, pops;
  std::map<uint32_t, std::string> program_names;
  int steps_with_payload = 0;
  for (const Record& record : data.records) {
    if (record.kind == static_cast<uint8_t>(RecordKind::kRangePush)) {
      ++pushes[record.tid];
      std::string name = data.Name(record.arg);
      if (stacks[record.tid].empty())
        EXPECT_EQ(name, "outer");
      else
        EXPECT_EQ(name, "step");
      if (name == "step" && record.ext.size() == 1) ++steps_with_payload;
      stacks[record.tid].push_back(name);
    } else if (record.kind == static_cast<uint8_t>(RecordKind::kRangePop)) {
      ++pops[record.tid];
      ASSERT_FALSE(stacks[record.tid].empty());
      stacks[record.tid].pop_back();
    } else if (record.kind == static_cast<uint8_t>(RecordKind::kThreadName) && record.aux == 0) {
      program_names[record.tid] = data.Name(record.arg);
    }
  }
  EXPECT_EQ(pushes.size(), 3u);
  for (const auto& [tid, count] : pushes) {
    EXPECT_EQ(count, 40);
    EXPECT_EQ(pops[tid], 40);
    EXPECT_TRUE(stacks[tid].empty());
    EXPECT_EQ(program_names[tid], "nvtx worker");
  }
  EXPECT_EQ(steps_with_payload, 60);
  EXPECT_EQ(data.Count(RecordKind::kRangeStart), 1u);
  EXPECT_EQ(data.Count(RecordKind::kRangeEnd), 1u);
  EXPECT_EQ(data.Count(RecordKind::kMark), 60u);
}

TEST(ProcessTest, LinkedMstxProgramStartsFromTheEnvironment) {
  std::string output = MakeTempDir("mstx");
  Child child = Spawn({BuildDir() + "/bin/mstx_sample", "30", "2"}, {Options(output)});
  ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0);
  std::string dir;
  RawData data = OnlyRun(output, &dir);
  ASSERT_TRUE(data.opened);
  EXPECT_EQ(data.Count(RecordKind::kRangePush), 120u);
  EXPECT_EQ(data.Count(RecordKind::kRangePop), 120u);
  EXPECT_EQ(data.Count(RecordKind::kMark), 60u);
  EXPECT_EQ(ReadInfoJson(dir)["stop_reason"], "exit");
}

TEST(ProcessTest, DumpPrintsRecordsAndReportsDamage) {
  std::string output = MakeTempDir("dump");
  Child sample = Spawn({BuildDir() + "/bin/mstx_sample", "5", "1"}, {Options(output)});
  ReadAll(sample.stdout_fd);
  ASSERT_EQ(Wait(sample.pid), 0);
  std::string dir = ProfDirs(output).at(0);
  Child dump = Spawn({BuildDir() + "/bin/aiprof-dump", dir}, {});
  std::string text = ReadAll(dump.stdout_fd);
  EXPECT_EQ(Wait(dump.pid), 0);
  EXPECT_NE(text.find("range_push domain=0 name=\"iteration\""), std::string::npos) << text;
  EXPECT_NE(text.find("read report: "), std::string::npos);
  EXPECT_NE(text.find("drops: 0"), std::string::npos);

  // Cut the file inside its last chunk: the dump still prints what is intact and fails.
  std::string file = RuntimeDataFile(dir);
  struct stat info;
  ASSERT_EQ(stat(file.c_str(), &info), 0);
  ASSERT_EQ(truncate(file.c_str(), info.st_size - 20), 0);
  Child damaged = Spawn({BuildDir() + "/bin/aiprof-dump", "--summary", file}, {});
  text = ReadAll(damaged.stdout_fd);
  int status = Wait(damaged.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << text;
  EXPECT_NE(text.find("range_push 10"), std::string::npos) << text;
  EXPECT_NE(text.find("truncated"), std::string::npos) << text;
}

TEST(ProcessTest, ReturningFromMainFlushesEverything) {
  std::string output = MakeTempDir("exit");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "exit", "100000"},
                      {Options(output, ",\"flush_interval_ms\":60000")});
  ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0);
  std::string dir;
  RawData data = OnlyRun(output, &dir);
  EXPECT_EQ(data.Count(RecordKind::kMark), 100000u);
  EXPECT_TRUE(data.report.clean());
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["stop_reason"], "exit");
  EXPECT_EQ(info["exit_status"], 0);
  EXPECT_FALSE(info["end_realtime_ns"].is_null());
}

TEST(ProcessTest, UnderscoreExitStillFlushesTheLastInterval) {
  std::string output = MakeTempDir("underscore_exit");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "underscore-exit", "20000"},
                      {Options(output, ",\"flush_interval_ms\":60000")});
  ReadAll(child.stdout_fd);
  int status = Wait(child.pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  std::string dir;
  RawData data = OnlyRun(output, &dir);
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  EXPECT_EQ(data.Count(RecordKind::kMark), 20000u);
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["stop_reason"], "_exit");
  EXPECT_EQ(info["exit_status"], 5);
}

TEST(ProcessTest, SigtermFlushesAndTheProcessStillDiesBySigterm) {
  std::string output = MakeTempDir("sigterm");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "wait-signal", "5000"},
                      {Options(output, ",\"flush_interval_ms\":60000")});
  ASSERT_EQ(ReadLine(child.stdout_fd), "ready");
  kill(child.pid, SIGTERM);
  int status = Wait(child.pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  std::string dir;
  RawData data = OnlyRun(output, &dir);
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  EXPECT_GE(data.Count(RecordKind::kMark), 5000u);
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["stop_reason"], "signal");
  EXPECT_EQ(info["exit_status"], 128 + SIGTERM);
}

TEST(ProcessTest, DelayAndDurationAreCountedFromLaunch) {
  std::string output = MakeTempDir("delay");
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t launch_ns = now.tv_sec * 1000000000ull + now.tv_nsec;
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "wait-signal", "10"},
                      {Options(output,
                               ",\"delay_s\":0.3,\"duration_s\":0.3,"
                               "\"launch_realtime_ns\":" +
                                   std::to_string(launch_ns))});
  ASSERT_EQ(ReadLine(child.stdout_fd), "ready");
  std::string dir;
  for (int attempt = 0; attempt < 400; ++attempt) {  // until the window has closed
    std::vector<std::string> dirs = ProfDirs(output);
    if (!dirs.empty() &&
        ReadInfoJson(dirs[0]).value("stop_reason", nlohmann::json()) == "duration") {
      dir = dirs[0];
      break;
    }
    usleep(25000);
  }
  kill(child.pid, SIGKILL);
  Wait(child.pid);
  ASSERT_FALSE(dir.empty()) << "the window did not close by itself";
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_GE(info["start_realtime_ns"].get<uint64_t>(), launch_ns + 300000000ull);
  EXPECT_GE(info["end_realtime_ns"].get<uint64_t>(), launch_ns + 600000000ull);
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  EXPECT_GT(data.Count(RecordKind::kMark), 0u);
  for (const Record& record : data.records) {
    if (record.kind == static_cast<uint8_t>(RecordKind::kMark)) {
      EXPECT_EQ(data.Name(record.arg), "after ready");  // the 10 early marks were before the window
    }
  }
}

TEST(ProcessTest, SigkillMidRunLeavesReadableData) {
  std::string output = MakeTempDir("sigkill");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "wait-signal", "20000"},
                      {Options(output, ",\"flush_interval_ms\":50")});
  ASSERT_EQ(ReadLine(child.stdout_fd), "ready");
  // Wait until a flush has written the marks made before "ready" (bounded, no timing claim).
  std::string file;
  for (int attempt = 0; attempt < 400; ++attempt) {
    std::vector<std::string> dirs = ProfDirs(output);
    if (!dirs.empty()) {
      file = RuntimeDataFile(dirs[0]);
      RawData partial = LoadRawFile(file);
      if (partial.Count(RecordKind::kMark) >= 20000) break;
    }
    usleep(25000);
  }
  kill(child.pid, SIGKILL);
  int status = Wait(child.pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  RawData data = LoadRawFile(file);
  ASSERT_TRUE(data.opened) << data.error;
  EXPECT_GE(data.Count(RecordKind::kMark), 20000u);
  EXPECT_EQ(data.report.chunks_skipped, 0u) << data.report.Summary();
  EXPECT_GE(data.Count(RecordKind::kClockSync), 2u);
}

TEST(ProcessTest, MemoryStaysWithinTheCapAndDropsAreExact) {
  std::string output = MakeTempDir("rss");
  constexpr long kPerThread = 10000000;  // 20 M events from 2 threads under a 16 MiB cap
  Child child = Spawn(
      {BuildDir() + "/bin/runtime_test_child", "rss", std::to_string(kPerThread), "2", output}, {});
  std::string report = ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0) << report;
  long baseline_kb = 0, peak_kb = 0, attempted = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "baseline_kb %ld peak_kb %ld attempted %ld", &baseline_kb,
                        &peak_kb, &attempted),
            3)
      << report;
  EXPECT_EQ(attempted, 2 * kPerThread);
  constexpr long kCapKb = 16 * 1024, kConstantKb = 8 * 1024;
  EXPECT_LE(peak_kb - baseline_kb, kCapKb + kConstantKb)
      << "baseline " << baseline_kb << " KiB, peak " << peak_kb << " KiB";
  RawData data = OnlyRun(output);
  ASSERT_TRUE(data.opened);
  EXPECT_EQ(data.Count(RecordKind::kMark) + data.TotalDrops(), static_cast<uint64_t>(attempted));
}

// Buffers grow on demand: a process that records little keeps only the initial part of the
// pool resident (2 MiB), not the cap (64 MiB by default).
TEST(ProcessTest, AnIdleProcessAddsAtMostFourMiB) {
  std::string output = MakeTempDir("idle");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "idle", "10", output}, {});
  std::string report = ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0) << report;
  long baseline_kb = 0, window_kb = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "baseline_kb %ld window_kb %ld", &baseline_kb, &window_kb),
            2)
      << report;
  EXPECT_LE(window_kb - baseline_kb, 4 * 1024)
      << "baseline " << baseline_kb << " KiB, with an open window " << window_kb << " KiB";
  RawData data = OnlyRun(output);
  EXPECT_EQ(data.Count(RecordKind::kMark), 10u);
}

// Every PROF_* directory under `output` is complete: closed with an end time and a reason.
std::map<std::string, nlohmann::json> ClosedDirsByPid(const std::string& output) {
  std::map<std::string, nlohmann::json> by_pid;
  for (const std::string& dir : ProfDirs(output)) {
    nlohmann::json info = ReadInfoJson(dir);
    EXPECT_TRUE(info["stop_reason"].is_string()) << dir << ": " << info.dump(2);
    EXPECT_FALSE(info["end_realtime_ns"].is_null()) << dir;
    by_pid[std::to_string(info["pid"].get<int>()) + "/" + info["stop_reason"].dump()] = info;
  }
  return by_pid;
}

size_t CountWithReason(const std::map<std::string, nlohmann::json>& dirs, const char* reason) {
  size_t count = 0;
  for (const auto& [key, info] : dirs) count += info["stop_reason"] == reason;
  return count;
}

TEST(ProcessTest, ForkThenExecLeavesOnlyTheExecutedProgramsDirectories) {
  std::string output = MakeTempDir("launch_quiet");
  Child child =
      Spawn({BuildDir() + "/bin/runtime_test_child", "launch", "3", "quiet"}, {Options(output)});
  ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0);
  auto dirs = ClosedDirsByPid(output);
  // The launcher's own and one per exec'd worker; none for the children between fork and exec.
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(CountWithReason(dirs, "exit"), 4u);
  size_t workers = 0;
  for (const std::string& dir : ProfDirs(output)) {
    RawData data = LoadRawFile(RuntimeDataFile(dir));
    if (data.Count(RecordKind::kMark) == 100u) ++workers;
  }
  EXPECT_EQ(workers, 3u);
}

TEST(ProcessTest, AForkChildThatRecordsBeforeExecGetsItsOwnClosedDirectory) {
  std::string output = MakeTempDir("launch_record");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "launch", "2", "record"},
                      {Options(output, ",\"flush_interval_ms\":60000")});
  ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0);
  auto dirs = ClosedDirsByPid(output);
  // The launcher, two exec'd workers, and the two children's records from before their exec
  // (same pid as the worker each became, closed with reason "exec").
  ASSERT_EQ(dirs.size(), 5u);
  EXPECT_EQ(CountWithReason(dirs, "exec"), 2u);
  for (const std::string& dir : ProfDirs(output)) {
    if (ReadInfoJson(dir)["stop_reason"] != "exec") continue;
    RawData data = LoadRawFile(RuntimeDataFile(dir));
    ASSERT_TRUE(data.opened) << dir;
    ASSERT_EQ(data.Count(RecordKind::kMark), 1u) << dir;
    for (const Record& record : data.records) {
      if (record.kind == static_cast<uint8_t>(RecordKind::kMark)) {
        EXPECT_EQ(data.Name(record.arg), "before exec");
      }
    }
  }
}

TEST(ProcessTest, AProgramReexecutedAsProcSelfExeIsNamedByItsExecutable) {
  std::string output = MakeTempDir("reexec");
  Child child = Spawn({BuildDir() + "/bin/runtime_test_child", "reexec"}, {Options(output)});
  ReadAll(child.stdout_fd);
  ASSERT_EQ(Wait(child.pid), 0);
  auto dirs = ClosedDirsByPid(output);
  // The image before the exec recorded nothing, so it left no directory; the launched
  // program's last image keeps one.
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(CountWithReason(dirs, "exit"), 1u);
  for (const auto& [key, info] : dirs) {
    EXPECT_EQ(info["exe"], "runtime_test_child") << info.dump(2);
    std::string argv0 = info["cmdline"][0].get<std::string>();
    EXPECT_EQ(argv0, BuildDir() + "/bin/runtime_test_child") << info["cmdline"].dump();
  }
}

}  // namespace
}  // namespace aiprof::testing
