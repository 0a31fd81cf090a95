// The client side of the dynamic control protocol (src/runtime/dynamic/protocol.h): one
// connection to one job's socket, line in, line out.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace aiprof::cli {

class ControlConnection {
 public:
  ControlConnection() = default;
  ~ControlConnection();
  ControlConnection(ControlConnection&& other) noexcept;
  ControlConnection& operator=(ControlConnection&& other) noexcept;
  ControlConnection(const ControlConnection&) = delete;

  // Connects to `socket_path` (aiprof_dynamic_<pid>) and reads the greeting. Refuses (false,
  // `error` saying why) a socket that is not the job's: its directory must be private to the
  // job's user, the socket file owned by that user, and the peer (SO_PEERCRED) the pid in
  // its name running as that user. Also false when the job is unreachable or busy (`error`
  // then holds its "busy: ..." line).
  bool Connect(const std::string& socket_path, std::string& error);
  // Sends one command; returns its one-line reply, or "" when the job closed the connection
  // (closed() becomes true) or did not answer within timeout_ms.
  std::string Send(const std::string& command, int timeout_ms = 10000);
  // Reads one line (for a reply that follows a close, or the greeting). "" on close/timeout.
  // Control characters in it are escaped (dynamic::PrintableText): it is safe to print.
  std::string ReadLine(int timeout_ms);

  const std::string& greeting() const { return greeting_; }
  bool closed() const { return fd_ < 0; }
  int fd() const { return fd_; }
  void Close();

 private:
  int fd_ = -1;
  std::string greeting_;
  std::string pending_;
};

struct AttachableJob {
  pid_t pid = 0;
  std::string socket_path;
  std::string command;  // from /proc/<pid>/cmdline, spaces between arguments
  std::string state;    // idle, collecting, or "controlled by pid N"
  std::string since;    // local time the job became attachable
};

// The effective uid of process `pid` (from /proc), or nullopt when it is gone.
std::optional<uid_t> ProcessUid(pid_t pid);

// The control socket of job `pid` in the private socket directories of its user, or "" and
// `error` saying where it was looked for.
std::string FindJobSocket(pid_t pid, std::string& error);

// The pids that have a control socket in this user's socket directories.
std::vector<pid_t> JobsWithSockets();

// Lists this user's jobs with a control socket (connecting to each). Sockets of dead
// processes are removed and their paths appended to `removed_stale`.
std::vector<AttachableJob> ListAttachableJobs(std::vector<std::string>& removed_stale);

}  // namespace aiprof::cli
