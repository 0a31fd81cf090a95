// Dynamic collection under faults and attackers: the launcher never competes with itself
// for its own job (50 launches), a start's options obey the same limits as the command line,
// a job stopped by SIGTERM removes its socket, a job closing every descriptor keeps its files
// intact, and a squatter of another uid can neither take
// the job's place nor reach the client's terminal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "dynamic_job_test.h"
#include "prof_contents.h"

namespace aiprof::testing {
namespace {

constexpr uid_t kNobody = 65534;

using DynamicFaults = DynamicJobTest;

// Issue 25: typed into launch mode, `start` then `stop` printed "busy: controlled by pid
// <the launcher>" in 8 of 16 runs (the launcher's probe connection was still the job's
// controller), and once the two arrived back to back with nothing between. Fifty launches,
// five at a time: every one gets its window, with marks, and no "busy".
TEST_F(DynamicFaults, LaunchModeNeverCompetesWithItselfInFiftyRuns) {
  constexpr int kRuns = 50, kAtOnce = 5;
  for (int batch = 0; batch < kRuns / kAtOnce; ++batch) {
    std::vector<std::unique_ptr<Subprocess>> launches;
    std::vector<std::string> outputs;
    for (int i = 0; i < kAtOnce; ++i) {
      const std::string run = dir_.path() + "/launch" + std::to_string(batch * kAtOnce + i);
      outputs.push_back(run + "/out");
      const std::string script =
          "(sleep 0.3; echo start; sleep 0.2; echo stop; echo quit; "
          "sleep 0.1; touch " +
          run + ".finish) | " + Aiprof() +
          " --dynamic=on --export=off --msproftx=on --output=" + outputs.back() + " " +
          SampleJob() + " " + run + ".finish 0";
      launches.push_back(
          std::make_unique<Subprocess>(std::vector<std::string>{"/bin/sh", "-c", script}, Env()));
    }
    for (int i = 0; i < kAtOnce; ++i) {
      const int run = batch * kAtOnce + i;
      Subprocess& launch = *launches[i];
      EXPECT_EQ(launch.Wait(30000), 0) << "run " << run << ": " << launch.output();
      EXPECT_EQ(launch.output().find("busy"), std::string::npos)
          << "run " << run << ": " << launch.output();
      EXPECT_NE(launch.output().find("ok: collecting into"), std::string::npos)
          << "run " << run << ": " << launch.output();
      EXPECT_NE(launch.output().find("ok: stopped"), std::string::npos)
          << "run " << run << ": " << launch.output();
      std::vector<std::string> dirs = ListProfDirs(outputs[i]);
      ASSERT_EQ(dirs.size(), 1u) << "run " << run << ": " << launch.output();
      EXPECT_FALSE(ReadProfDir(dirs[0]).marks.empty()) << "run " << run;
    }
  }
}

// Issue 26: `start {"buffer_mb": 999999}` was accepted (the job grew to 8 GB) and
// `duration_s: -1` too. The job refuses what the command line refuses, naming the option.
TEST_F(DynamicFaults, StartOptionsOutOfRangeAreRefusedByName) {
  const std::string finish = dir_.path() + "/finish";
  std::unique_ptr<Subprocess> job = StartSampleJob(finish, 0, Env());
  Subprocess cli({Aiprof(), "--dynamic=on", "--pid=" + std::to_string(job->pid()),
                  "--output=" + dir_.path() + "/out"},
                 Env());
  ASSERT_NE(cli.ReadUntil("attached to pid"), "") << cli.output();
  cli.Write("start buffer_mb=999999\n");
  EXPECT_NE(cli.ReadUntil("error: option 'buffer_mb' (--buffer-size): 999999 is not an integer in "
                          "1..4096"),
            "")
      << cli.output();
  cli.Write("start {\"flush_interval_ms\": -5}\n");
  EXPECT_NE(cli.ReadUntil("error: option 'flush_interval_ms'"), "") << cli.output();
  cli.Write("start {\"task_time\": \"l9\"}\n");
  EXPECT_NE(
      cli.ReadUntil("error: option 'task_time' (--task-time): 'l9' is not one of off|on|l0|l1|l2"),
      "")
      << cli.output();
  cli.Write("start duration_s=-1\n");
  EXPECT_NE(cli.ReadUntil("error: option 'duration_s' cannot be set by start"), "") << cli.output();
  // The mode is the job's: a start cannot make it a launch-mode window whose directory comes
  // later (it answered with the previous window's directory).
  cli.Write("start {\"mode\":\"launch\"}\n");
  EXPECT_NE(cli.ReadUntil("error: option 'mode' cannot be set by start"), "") << cli.output();
  cli.Write("status\n");
  EXPECT_NE(cli.ReadUntil("ok: state=idle windows=0"), "") << cli.output();
  cli.Write("start buffer_mb=32\n");
  EXPECT_NE(cli.ReadUntil("ok: collecting into"), "") << cli.output();
  cli.Write("stop\nquit\n");
  EXPECT_EQ(cli.Wait(), 0);
  Touch(finish);
  EXPECT_EQ(job->Wait(), 0);
}

TEST_F(DynamicFaults, OptionsOutOfRangeInTheEnvironmentAreRefusedByName) {
  const std::string output = dir_.path() + "/out";
  Subprocess job(
      {SampleJob(), dir_.path() + "/never", "0"},
      {"AIPROF_OPTIONS={\"mode\":\"launch\",\"output\":\"" + output + "\",\"buffer_mb\":999999}"});
  EXPECT_NE(job.ReadUntil("option 'buffer_mb' (--buffer-size): 999999 is not an integer in "
                          "1..4096; profiling disabled"),
            "")
      << job.output();
  Touch(dir_.path() + "/never");
  EXPECT_EQ(job.Wait(), 0);
  EXPECT_TRUE(ListProfDirs(output).empty());
}

// Exit handlers do not run when SIGTERM ends a job; the runtime's handler removes the socket.
TEST_F(DynamicFaults, AJobEndedBySigtermRemovesItsSocket) {
  std::unique_ptr<Subprocess> job = StartSampleJob(dir_.path() + "/finish", 0, Env());
  const std::string socket = run_dir_ + "/aiprof_dynamic_" + std::to_string(job->pid());
  ASSERT_TRUE(WaitForPath(socket)) << socket;
  job->Kill(SIGTERM);
  EXPECT_EQ(job->Wait(), 128 + SIGTERM);
  EXPECT_NE(access(socket.c_str(), F_OK), 0) << socket << " was left behind";
}

// A job that closes every descriptor above 2 while it runs (a daemon, some launchers) takes
// the dynamic mode's control socket, wake pipes and config watcher, which the runtime makes
// again meanwhile, and then opens its own files under the old numbers: they keep exactly
// what the job wrote (tests/runtime/fd_closing_job.c), and the job exits 0.
TEST_F(DynamicFaults, AJobClosingEveryDescriptorKeepsItsFilesUnderDynamicMode) {
  const char* modes[] = {"close", "close_range", "closefrom", "dup2"};
  for (int run = 0; run < 8; ++run) {
    const std::string mode = modes[run % 4];
    SCOPED_TRACE("run " + std::to_string(run) + " (" + mode + ")");
    const std::string dir = dir_.path() + "/job" + std::to_string(run);
    std::filesystem::create_directories(dir);
    Subprocess job({BuildDir() + "/bin/fd_closing_job", dir, mode, "2000"},
                   Env({"AIPROF_MODE=dynamic"}));
    EXPECT_EQ(job.Wait(), 0) << job.output();
    EXPECT_NE(job.output().find("4000\n"), std::string::npos) << job.output();
    for (int file = 0; file < 15; ++file) {
      const std::string name = "keep_" + std::to_string(file);
      std::ifstream in(dir + "/" + name + ".txt");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_EQ(text, name + " ok\n");
    }
  }
}

// Issue 26: with the socket in a shared place, another user bound it first; root's client
// sent its options there and printed its escape sequences. Here the squatter (uid nobody)
// owns the directory XDG_RUNTIME_DIR names and serves the job's socket name in it: the job
// does not use that directory, and the client finds the real job, never the squatter.
TEST_F(DynamicFaults, ASquatterOfAnotherUidNeitherTakesTheJobNorReachesTheTerminal) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the squatter as another uid";
  // A shared place where anyone may create a directory, like /tmp.
  ASSERT_EQ(chmod(dir_.path().c_str(), 01777), 0);
  const std::string squatted = dir_.path() + "/squatted";
  pid_t maker = fork();
  if (maker == 0) {
    _exit(setuid(kNobody) == 0 && mkdir(squatted.c_str(), 0777) == 0 &&
                  chmod(squatted.c_str(), 0777) == 0
              ? 0
              : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(maker, &status, 0), maker);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::vector<std::string> env = {"XDG_RUNTIME_DIR=" + squatted};
  const std::string finish = dir_.path() + "/finish";
  std::unique_ptr<Subprocess> job = StartSampleJob(finish, 0, env);
  EXPECT_NE(job->output().find("the control socket is in"), std::string::npos) << job->output();
  // Now that the pid is known, the squatter serves its name in its directory.
  const std::string fake = squatted + "/aiprof_dynamic_" + std::to_string(job->pid());
  pid_t squatter = fork();
  if (squatter == 0) {
    if (setuid(kNobody) != 0) _exit(2);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, fake.c_str());
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        chmod(fake.c_str(), 0666) != 0 || listen(fd, 8) != 0) {
      _exit(3);
    }
    for (;;) {
      int client = accept(fd, nullptr, nullptr);
      const char greeting[] = "ready pid=1 state=\x1b[2Jcollecting since=0\nok: collecting\n";
      if (client >= 0 && write(client, greeting, sizeof greeting - 1) < 0) _exit(4);
    }
  }
  ASSERT_TRUE(WaitForPath(fake));
  Subprocess list({Aiprof(), "--dynamic=on", "--list"}, env);
  EXPECT_EQ(list.Wait(), 0);
  EXPECT_NE(list.output().find(std::to_string(job->pid())), std::string::npos) << list.output();
  EXPECT_EQ(list.output().find('\x1b'), std::string::npos) << list.output();
  const std::string output = dir_.path() + "/out";
  Subprocess cli({Aiprof(), "--dynamic=on", "--pid=" + std::to_string(job->pid()),
                  "--output=" + output, "--msproftx=on"},
                 env);
  ASSERT_NE(cli.ReadUntil("attached to pid " + std::to_string(job->pid()) + " (idle)"), "")
      << cli.output();
  cli.Write("start\n");
  ASSERT_NE(cli.ReadUntil("ok: collecting into " + output), "") << cli.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  cli.Write("stop\nquit\n");
  EXPECT_EQ(cli.Wait(), 0);
  EXPECT_EQ(cli.output().find('\x1b'), std::string::npos) << cli.output();
  kill(squatter, SIGKILL);
  waitpid(squatter, nullptr, 0);
  Touch(finish);
  EXPECT_EQ(job->Wait(), 0);
  std::vector<std::string> dirs = ListProfDirs(output);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_FALSE(ReadProfDir(dirs[0]).marks.empty());
}

}  // namespace
}  // namespace aiprof::testing
