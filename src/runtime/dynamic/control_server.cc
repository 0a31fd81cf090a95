#include "runtime/dynamic/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "runtime/dynamic/command_parser.h"
#include "runtime/dynamic/protocol.h"

namespace aiprof::dynamic {
namespace {

using runtime::MakeOwnedFd;
using runtime::OwnedFd;

constexpr size_t kMaxLineBytes = 64 * 1024;
// Shutdown waits this long for the serving thread (a wedged one must not hold up the exit).
constexpr int kShutdownWaitMs = 2000;

bool FillAddress(const std::string& path, sockaddr_un& address) {
  std::memset(&address, 0, sizeof(address));
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) return false;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return true;
}

// A socket file nobody listens on (its process died) is stale.
bool IsStaleSocket(const std::string& path) {
  sockaddr_un address;
  if (!FillAddress(path, address)) return false;
  OwnedFd probe = MakeOwnedFd([] { return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); });
  bool stale = false;
  probe.Use([&](int fd) {
    stale = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 &&
            (errno == ECONNREFUSED || errno == ENOENT);
  });
  return stale;
}

// Connects to the socket and lets go: wakes a serving thread whose wake pipe was taken.
void KnockOn(const std::string& path) {
  sockaddr_un address;
  if (!FillAddress(path, address)) return;
  OwnedFd knock =
      MakeOwnedFd([] { return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0); });
  knock.Use([&](int fd) { connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)); });
}

void SendLine(OwnedFd& fd, const std::string& line) {
  std::string data = line + "\n";
  fd.Use([&](int socket_fd) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = send(socket_fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  });
}

}  // namespace

struct ControlServer::Client {
  OwnedFd fd;
  pid_t pid = 0;
  std::string pending;  // bytes read but not yet a full line
  int window_commands = 0;
  bool opened_window = false;
};

ControlServer::ControlServer(WindowController& controller) : controller_(controller) {}

ControlServer::~ControlServer() {
  Shutdown();
}

bool ControlServer::Start(const std::string& socket_path, std::string& error) {
  sockaddr_un address;
  if (!FillAddress(socket_path, address)) {
    error = "socket path too long: " + socket_path;
    return false;
  }
  struct stat existing {};
  if (lstat(socket_path.c_str(), &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode) || !IsStaleSocket(socket_path)) {
      error = socket_path + " exists and is in use; is another job running with this pid?";
      return false;
    }
    unlink(socket_path.c_str());
  }
  socket_path_ = socket_path;
  if (!Listen(error)) return false;
  if (!wake_.Open()) {
    error = std::string("pipe(): ") + std::strerror(errno);
    RemoveSocketFile();
    listen_fd_.Close();
    return false;
  }
  owner_pid_ = getpid();
  since_ = std::time(nullptr);
  running_ = true;
  serving_done_ = false;
  // Every signal blocked in the thread (it inherits the mask): the program's signals go to
  // its own threads, and none runs a handler in the middle of this thread's socket use.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  thread_ = std::thread([this] { Serve(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return true;
}

bool ControlServer::Listen(std::string& error) {
  // Bind under a temporary name, restrict it to the owner, then rename: the final name
  // never exists with wider permissions, whatever the process umask is.
  std::string temporary = socket_path_ + ".tmp" + std::to_string(std::random_device{}() % 1000000);
  sockaddr_un temporary_address;
  if (!FillAddress(temporary, temporary_address)) {
    error = "socket path too long: " + temporary;
    return false;
  }
  OwnedFd listener =
      MakeOwnedFd([] { return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0); });
  if (!listener.valid()) {
    error = std::string("socket(): ") + std::strerror(errno);
    return false;
  }
  unlink(temporary.c_str());
  bool bound = false;
  listener.Use([&](int fd) {
    bound =
        bind(fd, reinterpret_cast<sockaddr*>(&temporary_address), sizeof(temporary_address)) == 0 &&
        chmod(temporary.c_str(), 0600) == 0 && listen(fd, 8) == 0 &&
        rename(temporary.c_str(), socket_path_.c_str()) == 0;
  });
  struct stat bound_file {};
  if (!bound || lstat(socket_path_.c_str(), &bound_file) != 0) {
    error = "cannot create control socket " + socket_path_ + ": " + std::strerror(errno);
    unlink(temporary.c_str());
    return false;
  }
  socket_inode_ = bound_file.st_ino;
  listen_fd_ = std::move(listener);
  return true;
}

void ControlServer::RemoveSocketFile() const {
  // Only the socket this server bound: never a file that took its place.
  struct stat current {};
  if (lstat(socket_path_.c_str(), &current) == 0 && current.st_ino == socket_inode_) {
    unlink(socket_path_.c_str());
  }
}

void ControlServer::Shutdown() {
  if (!running_.exchange(false)) return;
  // After fork() the child has no server thread (its std::thread copy names the parent's,
  // so it must not be joined or detached) and must not remove the parent's socket.
  if (getpid() != owner_pid_) return;
  const bool woken = wake_.Wake();
  for (int waited = 0; !serving_done_.load() && waited < kShutdownWaitMs; ++waited) {
    if (!woken && waited % 100 == 0) KnockOn(socket_path_);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  RemoveSocketFile();
  if (!serving_done_.load()) {
    thread_.detach();  // it may still use the descriptors: they stay open until the exit
    return;
  }
  thread_.join();
  listen_fd_.Close();
  wake_.Close();
}

std::string ControlServer::StateFields() {
  return std::string("state=") + (controller_.IsCollecting() ? "collecting" : "idle") +
         " since=" + std::to_string(since_);
}

void ControlServer::Serve() {
  Client client;
  while (running_) {
    pollfd fds[3] = {
        {wake_.read_fd(), POLLIN, 0}, {listen_fd_.get(), POLLIN, 0}, {client.fd.get(), POLLIN, 0}};
    int count = poll(fds, client.fd.valid() ? 3 : 2, -1);
    if (count < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!running_) break;
    if (fds[0].revents != 0) {
      wake_.Drain(fds[0].revents);
      continue;
    }
    if (fds[1].revents != 0) AcceptClient(client);
    if (client.fd.valid() && fds[2].revents != 0) ReadFromClient(client);
  }
  if (client.fd.valid()) CloseClient(client);
  serving_done_ = true;
}

void ControlServer::AcceptClient(Client& client) {
  int accepted = -1;
  const runtime::CloseWatch watch;
  if (!listen_fd_.Use([&](int fd) { accepted = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC); })) {
    // The program closed the listening socket: listen again under the same name.
    RemoveSocketFile();
    std::string error;
    if (!Listen(error))
      std::fprintf(stderr, "aiprof: dynamic collection stopped: %s\n", error.c_str());
    return;
  }
  if (accepted < 0) return;
  // A connection whose number the program closed meanwhile is gone: its client sees EOF.
  OwnedFd connection = watch.Adopt(accepted);
  if (!connection.valid()) return;
  PeerCredentials peer;
  connection.Use([&](int fd) { peer = PeerOf(fd); });
  if (!peer.known || !ClientAllowed(peer.uid, geteuid())) {
    SendLine(connection, "error: refused: this job (uid " + std::to_string(geteuid()) +
                             ") is controlled only by its own user and root, not by uid " +
                             std::to_string(peer.uid));
    return;
  }
  if (client.fd.valid()) ReadIfReadable(client);
  if (client.fd.valid()) {
    SendLine(connection, std::string(kGreetingBusy) + " controlled by pid " +
                             std::to_string(client.pid) + "; " + StateFields());
    return;
  }
  client = Client{};
  client.fd = std::move(connection);
  client.pid = peer.pid;
  SendLine(client.fd,
           std::string(kGreetingReady) + " pid=" + std::to_string(getpid()) + " " + StateFields());
}

void ControlServer::ReadIfReadable(Client& client) {
  while (client.fd.valid()) {
    pollfd ready{client.fd.get(), POLLIN, 0};
    if (poll(&ready, 1, 0) <= 0 || ready.revents == 0) return;
    ReadFromClient(client);
  }
}

void ControlServer::ReadFromClient(Client& client) {
  char buffer[4096];
  ssize_t n = -1;
  int read_errno = 0;
  if (!client.fd.Use([&](int fd) {
        n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
        read_errno = errno;
      })) {
    CloseClient(client);  // the program took the connection's number: the client is gone
    return;
  }
  if (n < 0 && (read_errno == EAGAIN || read_errno == EINTR)) return;
  if (n <= 0) {
    CloseClient(client);
    return;
  }
  client.pending.append(buffer, static_cast<size_t>(n));
  size_t newline;
  while (client.fd.valid() && (newline = client.pending.find('\n')) != std::string::npos) {
    std::string line = client.pending.substr(0, newline);
    client.pending.erase(0, newline + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!HandleLine(client, line)) CloseClient(client);
  }
  if (client.fd.valid() && client.pending.size() > kMaxLineBytes) {
    SendLine(client.fd, "error: command line longer than 64 KiB; closing the connection");
    CloseClient(client);
  }
}

bool ControlServer::HandleLine(Client& client, const std::string& line) {
  ParseResult parsed = ParseCommandLine(line);
  if (!parsed.ok) {
    SendLine(client.fd, "error: " + parsed.error);
    return true;
  }
  const ParsedCommand& command = parsed.command;
  if (command.verb == CommandVerb::kStart || command.verb == CommandVerb::kStop) {
    if (++client.window_commands > kMaxWindowCommandsPerConnection) {
      SendLine(client.fd, "error: limit of " + std::to_string(kMaxWindowCommandsPerConnection) +
                              " start/stop commands per connection reached; closing the connection "
                              "(reconnect to continue)");
      return false;
    }
  }
  ControlReply reply;
  switch (command.verb) {
    case CommandVerb::kStart:
      reply = controller_.StartWindow(OptionsToJson(command.options));
      if (reply.ok) client.opened_window = true;
      break;
    case CommandVerb::kStop:
      reply = controller_.StopWindow();
      if (reply.ok) client.opened_window = false;
      break;
    case CommandVerb::kStatus:
      reply = {true, controller_.Status() + " commands=" + std::to_string(client.window_commands) +
                         "/" + std::to_string(kMaxWindowCommandsPerConnection)};
      break;
    case CommandVerb::kQuit:
      if (client.opened_window && controller_.IsCollecting()) controller_.StopWindow();
      client.opened_window = false;
      SendLine(client.fd, "ok: bye; the job keeps running");
      return false;
  }
  SendLine(client.fd, (reply.ok ? "ok: " : "error: ") + reply.message);
  return true;
}

void ControlServer::CloseClient(Client& client) {
  // A controller that went away without quit must not leave its window open forever.
  if (client.opened_window && controller_.IsCollecting()) controller_.StopWindow();
  client.fd.Close();
  client = Client{};
}

}  // namespace aiprof::dynamic
