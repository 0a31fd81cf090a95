#include "runtime/dynamic/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

#include "runtime/dynamic/command_parser.h"
#include "runtime/dynamic/protocol.h"

namespace aiprof::dynamic {
namespace {

constexpr size_t kMaxLineBytes = 64 * 1024;

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
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool stale = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 &&
               (errno == ECONNREFUSED || errno == ENOENT);
  close(fd);
  return stale;
}

void SendLine(int fd, const std::string& line) {
  std::string data = line + "\n";
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

pid_t PeerPid(int fd) {
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return 0;
  return credentials.pid;
}

}  // namespace

struct ControlServer::Client {
  int fd = -1;
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
  // Bind under a temporary name, restrict it to the owner, then rename: the final name
  // never exists with wider permissions, whatever the process umask is.
  std::string temporary = socket_path + ".tmp" + std::to_string(std::random_device{}() % 1000000);
  sockaddr_un temporary_address;
  if (!FillAddress(temporary, temporary_address)) {
    error = "socket path too long: " + temporary;
    return false;
  }
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) {
    error = std::string("socket(): ") + std::strerror(errno);
    return false;
  }
  unlink(temporary.c_str());
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&temporary_address),
           sizeof(temporary_address)) != 0 ||
      chmod(temporary.c_str(), 0600) != 0 || listen(listen_fd_, 8) != 0 ||
      rename(temporary.c_str(), socket_path.c_str()) != 0) {
    error = "cannot create control socket " + socket_path + ": " + std::strerror(errno);
    unlink(temporary.c_str());
    close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    error = std::string("eventfd(): ") + std::strerror(errno);
    unlink(socket_path.c_str());
    close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  socket_path_ = socket_path;
  owner_pid_ = getpid();
  since_ = std::time(nullptr);
  running_ = true;
  thread_ = std::thread([this] { Serve(); });
  return true;
}

void ControlServer::Shutdown() {
  if (!running_.exchange(false)) return;
  // After fork() the child has no server thread (its std::thread copy names the parent's,
  // so it must not be joined or detached) and must not remove the parent's socket.
  if (getpid() == owner_pid_) {
    uint64_t one = 1;
    ssize_t written = write(wake_fd_, &one, sizeof(one));
    (void)written;
    if (thread_.joinable()) thread_.join();
    unlink(socket_path_.c_str());
  }
  close(listen_fd_);
  close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

std::string ControlServer::StateFields() {
  return std::string("state=") + (controller_.IsCollecting() ? "collecting" : "idle") +
         " since=" + std::to_string(since_);
}

void ControlServer::Serve() {
  Client client;
  while (running_) {
    pollfd fds[3] = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}, {client.fd, POLLIN, 0}};
    int count = poll(fds, client.fd >= 0 ? 3 : 2, -1);
    if (count < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;
    if (fds[1].revents & POLLIN) AcceptClient(client);
    if (client.fd >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) ReadFromClient(client);
  }
  if (client.fd >= 0) CloseClient(client);
}

void ControlServer::AcceptClient(Client& client) {
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  if (client.fd >= 0) {
    SendLine(fd, std::string(kGreetingBusy) + " controlled by pid " + std::to_string(client.pid) +
                     "; " + StateFields());
    close(fd);
    return;
  }
  client = Client{};
  client.fd = fd;
  client.pid = PeerPid(fd);
  SendLine(fd,
           std::string(kGreetingReady) + " pid=" + std::to_string(getpid()) + " " + StateFields());
}

void ControlServer::ReadFromClient(Client& client) {
  char buffer[4096];
  ssize_t n = recv(client.fd, buffer, sizeof(buffer), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    CloseClient(client);
    return;
  }
  client.pending.append(buffer, static_cast<size_t>(n));
  size_t newline;
  while (client.fd >= 0 && (newline = client.pending.find('\n')) != std::string::npos) {
    std::string line = client.pending.substr(0, newline);
    client.pending.erase(0, newline + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!HandleLine(client, line)) CloseClient(client);
  }
  if (client.fd >= 0 && client.pending.size() > kMaxLineBytes) {
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
  close(client.fd);
  client = Client{};
}

}  // namespace aiprof::dynamic
