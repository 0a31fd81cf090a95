// End to end: real jobs running libaiprof.so in dynamic mode, controlled by the real
// `aiprof` CLI in attach and launch mode.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/dynamic_client.h"
#include "dynamic_job_test.h"
#include "prof_contents.h"

namespace aiprof::testing {
namespace {

int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

class DynamicEndToEnd : public DynamicJobTest {
 protected:
  void SetUp() override {
    DynamicJobTest::SetUp();
    output_ = dir_.path() + "/out";
    finish_ = dir_.path() + "/finish";
  }
  // Starts the sample job in attach mode and waits for its socket.
  std::unique_ptr<Subprocess> StartAttachableJob(int exit_code = 7) {
    std::unique_ptr<Subprocess> job = StartSampleJob(finish_, exit_code, Env());
    EXPECT_TRUE(WaitForPath(Socket(job->pid())));
    return job;
  }

  std::string output_, finish_;
};

TEST_F(DynamicEndToEnd, AttachStartStopThreeTimesWritesThreeWindowsWithOnlyTheirEvents) {
  std::unique_ptr<Subprocess> job = StartAttachableJob();
  Subprocess cli({Aiprof(), "--dynamic=on", "--pid=" + std::to_string(job->pid()),
                  "--output=" + output_, "--msproftx=on"},
                 Env());
  ASSERT_NE(cli.ReadUntil("attached to pid"), "") << cli.output();
  std::vector<std::pair<int64_t, int64_t>> windows;
  for (int i = 0; i < 3; ++i) {
    int64_t sent = MonotonicNs();
    cli.Write("start\n");
    ASSERT_NE(cli.ReadUntil("ok: collecting into"), "") << cli.output();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cli.Write("stop\n");
    ASSERT_NE(cli.ReadUntil("ok: stopped"), "") << cli.output();
    windows.emplace_back(sent, MonotonicNs());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  cli.Write("status\n");
  EXPECT_NE(cli.ReadUntil("ok: state=idle windows=3"), "") << cli.output();
  cli.Write("quit\n");
  EXPECT_NE(cli.ReadUntil("ok: bye"), "");
  EXPECT_EQ(cli.Wait(), 0);

  Touch(finish_);
  EXPECT_EQ(job->Wait(), 7);  // the job's exit code and output are its own
  EXPECT_EQ(job->output(), "pid " + std::to_string(job->pid()) + "\nticks counted\n");
  EXPECT_TRUE(WaitForPath(Socket(job->pid()), false)) << "socket not removed at exit";

  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 3u);
  for (size_t i = 0; i < dirs.size(); ++i) {
    ProfContents contents = ReadProfDir(dirs[i]);
    EXPECT_EQ(contents.problems, "") << dirs[i];
    EXPECT_FALSE(contents.marks.empty()) << dirs[i];
    for (const std::string& mark : contents.marks) {
      ASSERT_TRUE(mark.starts_with("tick ")) << mark;
      int64_t taken = std::atoll(mark.c_str() + 5);
      EXPECT_GE(taken, windows[i].first) << "window " << i << " holds a mark from before its start";
      EXPECT_LE(taken, windows[i].second) << "window " << i << " holds a mark from after its stop";
    }
  }
}

TEST_F(DynamicEndToEnd, OneCommandGoesToEveryAttachedJob) {
  std::unique_ptr<Subprocess> first = StartAttachableJob(0);
  std::unique_ptr<Subprocess> second = StartAttachableJob(0);
  std::string pids = std::to_string(first->pid()) + "," + std::to_string(second->pid());
  Subprocess cli(
      {Aiprof(), "--dynamic=on", "--pid=" + pids, "--output=" + output_, "--msproftx=on"}, Env());
  cli.Write("start\n");
  ASSERT_NE(cli.ReadUntil("[pid " + std::to_string(first->pid()) + "] ok: collecting"), "")
      << cli.output();
  ASSERT_NE(cli.ReadUntil("[pid " + std::to_string(second->pid()) + "] ok: collecting"), "")
      << cli.output();
  // The jobs mark every millisecond; keep the windows open long enough to hold some marks
  // even when the machine is busy.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  cli.Write("stop\nquit\n");
  EXPECT_EQ(cli.Wait(), 0);
  Touch(finish_);
  EXPECT_EQ(first->Wait(), 0);
  EXPECT_EQ(second->Wait(), 0);
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 2u);  // one window per job
  for (const std::string& dir : dirs) EXPECT_FALSE(ReadProfDir(dir).marks.empty()) << dir;
}

TEST_F(DynamicEndToEnd, SocketIsOwnerOnlySecondClientRefusedKilledJobCleanedByList) {
  std::unique_ptr<Subprocess> job = StartAttachableJob();
  struct stat info {};
  ASSERT_EQ(lstat(Socket(job->pid()).c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  cli::ControlConnection first;
  std::string error;
  ASSERT_TRUE(first.Connect(Socket(job->pid()), error)) << error;
  Subprocess second({Aiprof(), "--dynamic=on", "--pid=" + std::to_string(job->pid())}, Env());
  EXPECT_EQ(second.Wait(), 1);
  EXPECT_NE(second.output().find("busy: controlled by pid " + std::to_string(getpid())),
            std::string::npos);

  Subprocess list({Aiprof(), "--dynamic=on", "--list"}, Env());
  EXPECT_EQ(list.Wait(), 0);
  EXPECT_NE(list.output().find(std::to_string(job->pid())), std::string::npos) << list.output();
  EXPECT_NE(list.output().find("dynamic_sample_job"), std::string::npos) << list.output();
  EXPECT_NE(list.output().find("controlled by pid"), std::string::npos) << list.output();
  first.Close();

  job->Kill(SIGKILL);
  job->Wait();
  ASSERT_EQ(access(Socket(job->pid()).c_str(), F_OK), 0) << "a killed job cannot remove its socket";
  Subprocess cleanup({Aiprof(), "--dynamic=on", "--list"}, Env());
  EXPECT_EQ(cleanup.Wait(), 0);
  EXPECT_NE(cleanup.output().find("removed stale socket " + Socket(job->pid())), std::string::npos)
      << cleanup.output();
  EXPECT_NE(access(Socket(job->pid()).c_str(), F_OK), 0);
}

TEST_F(DynamicEndToEnd, LaunchModeThroughAPseudoTerminal) {
  // The app's own environment asks for another mode and output: the launcher's values win.
  Subprocess aiprof(
      {Aiprof(), "--dynamic=on", "--output=" + output_, "--export=off", SampleJob(), finish_, "7"},
      Env({"AIPROF_MODE=launch",
           "AIPROF_OPTIONS={\"mode\":\"launch\",\"output\":\"" + dir_.path() + "/elsewhere\"}"}),
      /*use_pty=*/true);
  ASSERT_NE(aiprof.ReadUntil("type help"), "") << aiprof.output();
  aiprof.Write("help\r");
  EXPECT_NE(aiprof.ReadUntil("quit             stop collecting"), "") << aiprof.output();
  aiprof.Write("start\r");
  ASSERT_NE(aiprof.ReadUntil("ok: collecting into " + output_), "") << aiprof.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  aiprof.Write("stop\r");
  ASSERT_NE(aiprof.ReadUntil("ok: stopped"), "") << aiprof.output();
  // Line editing: a typo fixed with backspace, then the history recalls the command.
  aiprof.Write("statux\x7fs\r");
  ASSERT_NE(aiprof.ReadUntil("ok: state=idle windows=1"), "") << aiprof.output();
  aiprof.Write("\x1b[A\r");
  ASSERT_NE(aiprof.ReadUntil("ok: state=idle windows=1"), "") << aiprof.output();
  aiprof.Write("quit\r");
  ASSERT_NE(aiprof.ReadUntil("ok: bye"), "") << aiprof.output();
  Touch(finish_);
  EXPECT_EQ(aiprof.Wait(), 7) << aiprof.output();
  EXPECT_NE(aiprof.output().find("ticks counted"), std::string::npos);
  std::vector<std::string> dirs = ListProfDirs(output_);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_FALSE(ReadProfDir(dirs[0]).marks.empty());
  EXPECT_TRUE(ListProfDirs(dir_.path() + "/elsewhere").empty());
}

TEST_F(DynamicEndToEnd, LaunchWithoutATerminalPointsToAttachMode) {
  Subprocess aiprof({Aiprof(), "--dynamic=on", "--output=" + output_, SampleJob(), finish_, "3"},
                    Env());
  aiprof.CloseStdin();
  ASSERT_NE(aiprof.ReadUntil("Attach again with: aiprof --dynamic=on --pid="), "")
      << aiprof.output();
  Touch(finish_);
  EXPECT_EQ(aiprof.Wait(), 3);
  EXPECT_TRUE(ListProfDirs(output_).empty());
}

// The 30-minute limit without a start, shortened through AIPROF_DYNAMIC_IDLE_TIMEOUT_S.
TEST_F(DynamicEndToEnd, PromptLeavesAfterTheIdleTimeWithoutAStartAndTheJobRunsOn) {
  std::unique_ptr<Subprocess> job = StartAttachableJob();
  Subprocess cli({Aiprof(), "--dynamic=on", "--pid=" + std::to_string(job->pid())},
                 Env({"AIPROF_DYNAMIC_IDLE_TIMEOUT_S=1"}));
  ASSERT_NE(cli.ReadUntil("no start for 1 s: leaving interactive mode"), "") << cli.output();
  EXPECT_EQ(cli.Wait(), 0);
  Touch(finish_);
  EXPECT_EQ(job->Wait(), 7);
}

TEST_F(DynamicEndToEnd, DelayOrDurationIsAUsageError) {
  for (const char* option : {"--delay=1", "--duration=5"}) {
    Subprocess aiprof({Aiprof(), "--dynamic=on", option, SampleJob(), finish_, "0"}, Env());
    EXPECT_EQ(aiprof.Wait(), 2) << option;
  }
}

}  // namespace
}  // namespace aiprof::testing
