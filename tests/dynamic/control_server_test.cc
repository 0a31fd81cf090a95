// The control server's rules (permissions, one controller, command limit, stale sockets)
// with a controller that only counts windows: the window API itself is exercised by the
// end-to-end tests against real jobs (dynamic_attach_test).
#include "runtime/dynamic/control_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "cli/dynamic_client.h"
#include "temp_dir.h"

namespace aiprof::dynamic {
namespace {

class CountingWindowController final : public WindowController {
 public:
  ControlReply StartWindow(const std::string& options_json) override {
    if (collecting) return {false, "already collecting"};
    collecting = true;
    last_options = options_json;
    return {true, "collecting into PROF_" + std::to_string(++windows)};
  }
  ControlReply StopWindow() override {
    if (!collecting) return {false, "not collecting"};
    collecting = false;
    return {true, "stopped"};
  }
  bool IsCollecting() override { return collecting; }
  std::string Status() override {
    return std::string("state=") + (collecting ? "collecting" : "idle");
  }
  void MarkStep(uint64_t, bool) override {}
  void AddMetadata(const std::string&, const std::string&) override {}

  bool collecting = false;
  int windows = 0;
  std::string last_options;
};

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/aiprof_dynamic_" + std::to_string(getpid());
    std::string error;
    ASSERT_TRUE(server_.Start(path_, error)) << error;
  }
  cli::ControlConnection Connect() {
    cli::ControlConnection connection;
    std::string error;
    EXPECT_TRUE(connection.Connect(path_, error)) << error;
    return connection;
  }

  testing::TempDir dir_;
  std::string path_;
  CountingWindowController controller_;
  ControlServer server_{controller_};
};

TEST_F(ControlServerTest, SocketIsOwnerOnlyAndRemovedAtShutdown) {
  struct stat info {};
  ASSERT_EQ(lstat(path_.c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  server_.Shutdown();
  EXPECT_NE(access(path_.c_str(), F_OK), 0);
}

TEST_F(ControlServerTest, StartStopStatusQuit) {
  cli::ControlConnection connection = Connect();
  EXPECT_NE(connection.greeting().find("state=idle"), std::string::npos);
  EXPECT_EQ(connection.Send("start task_time=l1"), "ok: collecting into PROF_1");
  EXPECT_EQ(controller_.last_options, R"({"task_time":"l1"})");
  EXPECT_EQ(connection.Send("start").rfind("error: already collecting", 0), 0u);
  EXPECT_EQ(connection.Send("status").rfind("ok: state=collecting", 0), 0u);
  EXPECT_EQ(connection.Send("stop"), "ok: stopped");
  EXPECT_EQ(connection.Send("bogus").rfind("error: unknown command", 0), 0u);
  EXPECT_EQ(connection.Send("start"), "ok: collecting into PROF_2");
  EXPECT_EQ(connection.Send("quit"), "ok: bye; the job keeps running");
  EXPECT_EQ(connection.ReadLine(5000), "");
  EXPECT_TRUE(connection.closed());
  EXPECT_FALSE(controller_.collecting);      // quit closes the window it opened
  cli::ControlConnection again = Connect();  // the job still serves
  EXPECT_EQ(again.Send("status").rfind("ok: state=idle", 0), 0u);
}

TEST_F(ControlServerTest, SecondClientIsRefusedWithTheControllersPid) {
  cli::ControlConnection first = Connect();
  cli::ControlConnection second;
  std::string error;
  EXPECT_FALSE(second.Connect(path_, error));
  EXPECT_EQ(error.rfind("busy: controlled by pid " + std::to_string(getpid()) + ";", 0), 0u)
      << error;
  EXPECT_EQ(first.Send("status").rfind("ok:", 0), 0u);  // the first one is unaffected
  first.Close();
  cli::ControlConnection third;
  // The server notices the close on its next poll; retry until it has.
  for (int attempt = 0; attempt < 100 && !third.Connect(path_, error); ++attempt) usleep(10000);
  EXPECT_FALSE(third.closed()) << error;
}

TEST_F(ControlServerTest, The101stStartOrStopClosesTheConnectionAndReconnectResets) {
  cli::ControlConnection connection = Connect();
  for (int i = 0; i < 100; ++i) {
    std::string reply = connection.Send(i % 2 == 0 ? "start" : "stop");
    ASSERT_EQ(reply.rfind("ok:", 0), 0u) << i << ": " << reply;
    EXPECT_EQ(connection.Send("status").rfind("ok:", 0), 0u);  // status does not count
  }
  std::string refused = connection.Send("start");
  EXPECT_NE(refused.find("limit of 100 start/stop commands"), std::string::npos) << refused;
  EXPECT_EQ(connection.ReadLine(5000), "");
  EXPECT_TRUE(connection.closed());
  EXPECT_EQ(controller_.windows, 50);
  cli::ControlConnection fresh;
  std::string error;
  for (int attempt = 0; attempt < 100 && !fresh.Connect(path_, error); ++attempt) usleep(10000);
  EXPECT_EQ(fresh.Send("start").rfind("ok:", 0), 0u);
}

TEST_F(ControlServerTest, AForkedChildLeavesTheParentsSocketAlone) {
  pid_t child = fork();
  if (child == 0) {
    server_.Shutdown();  // what the child's atexit handler does
    _exit(access(path_.c_str(), F_OK) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  cli::ControlConnection connection = Connect();
  EXPECT_EQ(connection.Send("status").rfind("ok:", 0), 0u);
}

TEST(ControlServerStale, StaleSocketOfDeadProcessIsReplacedAtBind) {
  testing::TempDir dir;
  std::string path = dir.path() + "/aiprof_dynamic_1";
  // A bound socket nobody listens on any more: what a killed job leaves behind.
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  close(fd);
  CountingWindowController controller;
  ControlServer server(controller);
  std::string error;
  ASSERT_TRUE(server.Start(path, error)) << error;
  cli::ControlConnection connection;
  EXPECT_TRUE(connection.Connect(path, error)) << error;
}

TEST(ControlServerStale, LiveSocketIsNotStolen) {
  testing::TempDir dir;
  std::string path = dir.path() + "/aiprof_dynamic_2";
  CountingWindowController controller;
  ControlServer first(controller), second(controller);
  std::string error;
  ASSERT_TRUE(first.Start(path, error)) << error;
  EXPECT_FALSE(second.Start(path, error));
  EXPECT_NE(error.find("in use"), std::string::npos);
}

}  // namespace
}  // namespace aiprof::dynamic
