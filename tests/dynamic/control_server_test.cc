// The control server's rules (permissions, one controller, command limit, stale sockets)
// with a controller that only counts windows: the window API itself is exercised by the
// end-to-end tests against real jobs (dynamic_attach_test).
#include "runtime/dynamic/control_server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "cli/dynamic_client.h"
#include "runtime/dynamic/protocol.h"
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

// A client that closed is not the controller any more, even when the next one connects
// before the server saw the close (the launcher once found a job "busy: controlled by" its
// own pid after a probe connection).
TEST_F(ControlServerTest, AClosedControllerNeverMakesTheNextClientBusy) {
  for (int round = 0; round < 200; ++round) {
    cli::ControlConnection probe = Connect();
    probe.Close();
    cli::ControlConnection next;
    std::string error;
    ASSERT_TRUE(next.Connect(path_, error)) << "round " << round << ": " << error;
  }
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
  std::string path = dir.path() + "/aiprof_dynamic_" + std::to_string(getpid());
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

// The trust model of protocol.h: a client talks only to a socket its job serves, the job only
// to its own user and root.

constexpr uid_t kNobody = 65534;

// Serves one connection of `path` from a forked child running as `uid` (unchanged when it is
// the caller's): greets with `greeting` and exits. Returns the child's pid.
pid_t ServeFromChild(const std::string& path, uid_t uid, const std::string& greeting,
                     const std::string& dir_to_create = "") {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    if (uid != geteuid() && setuid(uid) != 0) _exit(2);
    if (!dir_to_create.empty() &&
        (mkdir(dir_to_create.c_str(), 0777) != 0 || chmod(dir_to_create.c_str(), 0777) != 0)) {
      _exit(3);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path.c_str());
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        chmod(path.c_str(), 0666) != 0 || listen(fd, 4) != 0) {
      _exit(4);
    }
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(5);
    int client = accept(fd, nullptr, nullptr);
    std::string line = greeting + "\n";
    if (client >= 0 && write(client, line.data(), line.size()) < 0) _exit(6);
    usleep(200000);
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  EXPECT_EQ(read(ready[0], &byte, 1), 1) << "the serving child did not start";
  close(ready[0]);
  return child;
}

void Reap(pid_t child) {
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST(ControlSocketTrust, ClientRefusesASocketServedByAnotherProcess) {
  testing::TempDir dir;
  // Named for this process, served by another: what a squatter does with a job's name.
  std::string path = dir.path() + "/aiprof_dynamic_" + std::to_string(getpid());
  pid_t squatter = ServeFromChild(path, geteuid(), "ready pid=1 state=idle since=0");
  cli::ControlConnection connection;
  std::string error;
  EXPECT_FALSE(connection.Connect(path, error));
  EXPECT_NE(error.find("served by pid " + std::to_string(squatter)), std::string::npos) << error;
  Reap(squatter);
}

TEST(ControlSocketTrust, ClientRefusesADirectoryOthersCanWrite) {
  testing::TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  CountingWindowController controller;
  ControlServer server(controller);
  std::string path = dir.path() + "/aiprof_dynamic_" + std::to_string(getpid()), error;
  ASSERT_TRUE(server.Start(path, error)) << error;
  cli::ControlConnection connection;
  EXPECT_FALSE(connection.Connect(path, error));
  EXPECT_NE(error.find("writable by other users"), std::string::npos) << error;
}

TEST(ControlSocketTrust, SquatterOfAnotherUidIsRefusedAndItsTextNeverPrintedRaw) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run the squatter as another uid";
  testing::TempDir parent;
  ASSERT_EQ(chmod(parent.path().c_str(), 0755), 0);
  // The squatter (uid nobody) makes the directory and binds the job's name first.
  std::string dir = parent.path() + "/squatted";
  std::string path = dir + "/aiprof_dynamic_" + std::to_string(getpid());
  ASSERT_EQ(chmod(parent.path().c_str(), 0777), 0);
  pid_t squatter =
      ServeFromChild(path, kNobody, "ready pid=1 state=\x1b[31mcollecting since=0", dir);
  cli::ControlConnection connection;
  std::string error;
  EXPECT_FALSE(connection.Connect(path, error));
  EXPECT_NE(error.find("belongs to uid 65534"), std::string::npos) << error;
  EXPECT_EQ(error.find('\x1b'), std::string::npos);
  Reap(squatter);
  EXPECT_EQ(PrintableText("ok \x1b[2J\xc2\x9b"
                          "31m caf\xc3\xa9"),
            "ok \\x1b[2J\\x9b"
            "31m caf\xc3\xa9");
}

TEST(ControlSocketTrust, ServerRefusesAClientOfAnotherUid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  testing::TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  CountingWindowController controller;
  ControlServer server(controller);
  std::string path = dir.path() + "/aiprof_dynamic_" + std::to_string(getpid()), error;
  ASSERT_TRUE(server.Start(path, error)) << error;
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);  // even a socket others may open is not theirs
  int answer[2];
  ASSERT_EQ(pipe(answer), 0);
  pid_t child = fork();
  if (child == 0) {
    close(answer[0]);
    if (setuid(kNobody) != 0) _exit(2);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path.c_str());
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) _exit(3);
    char reply[512];
    ssize_t n = read(fd, reply, sizeof reply);
    if (n > 0 && write(answer[1], reply, static_cast<size_t>(n)) < 0) _exit(5);
    // Whatever it sends next is never read as a command.
    const char start[] = "start\n";
    ssize_t ignored = send(fd, start, sizeof start - 1, MSG_NOSIGNAL);
    (void)ignored;
    _exit(0);
  }
  close(answer[1]);
  char reply[512] = {};
  ssize_t n = read(answer[0], reply, sizeof reply - 1);
  close(answer[0]);
  waitpid(child, nullptr, 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(reply).rfind("error: refused", 0), 0u) << reply;
  EXPECT_EQ(controller.windows, 0);  // its start was never read
  cli::ControlConnection own;        // the job's own user still controls it
  EXPECT_TRUE(own.Connect(path, error)) << error;
}

}  // namespace
}  // namespace aiprof::dynamic
