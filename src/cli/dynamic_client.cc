#include "cli/dynamic_client.h"

#include <dirent.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "runtime/dynamic/protocol.h"

namespace aiprof::cli {

ControlConnection::~ControlConnection() {
  Close();
}

ControlConnection::ControlConnection(ControlConnection&& other) noexcept
    : fd_(other.fd_), greeting_(std::move(other.greeting_)), pending_(std::move(other.pending_)) {
  other.fd_ = -1;
}

ControlConnection& ControlConnection::operator=(ControlConnection&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    greeting_ = std::move(other.greeting_);
    pending_ = std::move(other.pending_);
    other.fd_ = -1;
  }
  return *this;
}

void ControlConnection::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

std::optional<uid_t> ProcessUid(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with("Uid:")) continue;
    std::istringstream fields(line.substr(4));
    unsigned long real = 0, effective = 0;
    if (fields >> real >> effective) return static_cast<uid_t>(effective);
  }
  return std::nullopt;
}

bool ControlConnection::Connect(const std::string& socket_path, std::string& error) {
  const size_t slash = socket_path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : socket_path.substr(0, slash);
  std::optional<pid_t> pid = dynamic::ParseSocketPid(
      slash == std::string::npos ? socket_path : socket_path.substr(slash + 1));
  if (!pid) {
    error = "refusing " + socket_path + ": not a job's control socket (aiprof_dynamic_<pid>)";
    return false;
  }
  std::optional<uid_t> job_uid = ProcessUid(*pid);
  if (!job_uid) {
    error = "cannot connect to " + socket_path + ": process " + std::to_string(*pid) +
            " is not running";
    return false;
  }
  const std::string refused = "refusing " + socket_path + ": ";
  const std::string advice =
      "; it may have been put there by another user: remove it and restart the job";
  if (std::string problem = dynamic::CheckPrivateDirectory(directory, *job_uid); !problem.empty()) {
    error = refused + problem + advice;
    return false;
  }
  struct stat file {};
  if (lstat(socket_path.c_str(), &file) != 0) {
    error = "cannot connect to " + socket_path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISSOCK(file.st_mode) || file.st_uid != *job_uid) {
    error = refused + "it is not a socket of uid " + std::to_string(*job_uid) +
            " (the job's user)" + advice;
    return false;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) {
    error = "socket path too long: " + socket_path;
    return false;
  }
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    error = "cannot connect to " + socket_path + ": " + std::strerror(errno);
    Close();
    return false;
  }
  dynamic::PeerCredentials peer = dynamic::PeerOf(fd_);
  if (!peer.known || peer.pid != *pid || peer.uid != *job_uid) {
    error = refused + "it is served by pid " + std::to_string(peer.pid) + " (uid " +
            std::to_string(peer.uid) + "), not by the job (pid " + std::to_string(*pid) + ", uid " +
            std::to_string(*job_uid) + ")" + advice;
    Close();
    return false;
  }
  greeting_ = ReadLine(5000);
  if (greeting_.rfind(dynamic::kGreetingReady, 0) != 0) {
    error = greeting_.empty() ? "no greeting from " + socket_path : greeting_;
    Close();
    return false;
  }
  return true;
}

std::string ControlConnection::ReadLine(int timeout_ms) {
  while (true) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return dynamic::PrintableText(line);
    }
    if (fd_ < 0) return "";
    pollfd poll_fd{fd_, POLLIN, 0};
    int ready = poll(&poll_fd, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return "";
    char buffer[4096];
    ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) {
      Close();
      continue;  // a last complete line may still be pending
    }
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

std::string ControlConnection::Send(const std::string& command, int timeout_ms) {
  if (fd_ < 0) return "";
  std::string line = command + "\n";
  if (send(fd_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
    Close();
    return "";
  }
  return ReadLine(timeout_ms);
}

namespace {

std::string ProcessCommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

std::string LocalTime(std::time_t when) {
  tm local{};
  localtime_r(&when, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

}  // namespace

std::string FindJobSocket(pid_t pid, std::string& error) {
  std::optional<uid_t> uid = ProcessUid(pid);
  if (!uid) {
    error = "no such process";
    return "";
  }
  std::vector<std::string> directories = dynamic::SocketDirectories(*uid);
  std::string looked;
  for (const std::string& directory : directories) {
    std::string path = directory + "/" + dynamic::SocketName(pid);
    struct stat info {};
    if (lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) return path;
    looked += (looked.empty() ? "" : ", ") + directory;
  }
  error =
      "no control socket " + dynamic::SocketName(pid) + " in " +
      (looked.empty() ? "any private socket directory of uid " + std::to_string(*uid) : looked) +
      " (is the job running with AIPROF_MODE=dynamic, as this user?)";
  return "";
}

std::vector<pid_t> JobsWithSockets() {
  std::vector<pid_t> pids;
  for (const std::string& directory : dynamic::SocketDirectories(geteuid())) {
    DIR* dir = opendir(directory.c_str());
    if (dir == nullptr) continue;
    while (dirent* entry = readdir(dir)) {
      std::optional<pid_t> pid = dynamic::ParseSocketPid(entry->d_name);
      if (pid && std::find(pids.begin(), pids.end(), *pid) == pids.end()) pids.push_back(*pid);
    }
    closedir(dir);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::vector<AttachableJob> ListAttachableJobs(std::vector<std::string>& removed_stale) {
  std::vector<AttachableJob> jobs;
  for (const std::string& directory : dynamic::SocketDirectories(geteuid())) {
    DIR* dir = opendir(directory.c_str());
    if (dir == nullptr) continue;
    while (dirent* entry = readdir(dir)) {
      std::optional<pid_t> pid = dynamic::ParseSocketPid(entry->d_name);
      if (!pid) continue;
      AttachableJob job;
      job.pid = *pid;
      job.socket_path = directory + "/" + entry->d_name;
      struct stat info {};
      if (lstat(job.socket_path.c_str(), &info) != 0 || !S_ISSOCK(info.st_mode)) continue;
      ControlConnection connection;
      std::string error;
      bool connected = connection.Connect(job.socket_path, error);
      if (!connected && error.rfind(dynamic::kGreetingBusy, 0) != 0) {
        // Only this user's own files are removed, and only when their job is gone.
        if (info.st_uid == geteuid() && (!dynamic::IsProcessAlive(*pid) ||
                                         error.find("Connection refused") != std::string::npos)) {
          unlink(job.socket_path.c_str());
          removed_stale.push_back(job.socket_path);
        }
        continue;
      }
      const std::string& line = connected ? connection.greeting() : error;
      job.state = dynamic::FieldValue(line, "state");
      if (!connected) {
        size_t at = line.find("pid ");
        job.state += " (controlled by pid " + line.substr(at + 4, line.find(';') - at - 4) + ")";
      }
      std::string since = dynamic::FieldValue(line, "since");
      job.since =
          since.empty() ? "-" : LocalTime(static_cast<std::time_t>(std::atoll(since.c_str())));
      job.command = dynamic::PrintableText(ProcessCommandLine(*pid));
      jobs.push_back(std::move(job));
    }
    closedir(dir);
  }
  std::sort(jobs.begin(), jobs.end(),
            [](const AttachableJob& a, const AttachableJob& b) { return a.pid < b.pid; });
  return jobs;
}

}  // namespace aiprof::cli
