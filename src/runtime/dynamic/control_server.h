// The job side of dynamic collection: a background thread serving the line protocol of
// protocol.h on the Unix socket aiprof_dynamic_<pid> (mode 0600, in a directory only the
// job's user can write). One controlling client at a time, of the job's own uid or root
// (SO_PEERCRED); the thread sleeps in poll() so a command is handled as soon as it arrives
// and an idle job pays nothing. Its descriptors are OwnedFds: a program that closes them
// (every fd above 2) gets its numbers back untouched, and the server opens new ones.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <ctime>
#include <string>
#include <thread>

#include "runtime/dynamic/wake_pipe.h"
#include "runtime/dynamic/window_controller.h"
#include "runtime/owned_fd.h"

namespace aiprof::dynamic {

class ControlServer {
 public:
  explicit ControlServer(WindowController& controller);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Binds the socket (replacing a stale one of a dead process) and starts the thread.
  // Returns false with `error` set when the socket cannot be created.
  bool Start(const std::string& socket_path, std::string& error);
  // Stops the thread, closes any open window and removes the socket. Idempotent.
  void Shutdown();

  const std::string& socket_path() const { return socket_path_; }
  // Removes the socket file if it is still the one this server bound (lstat and unlink only:
  // async-signal-safe, for a job that dies by SIGTERM without running its exit handlers).
  void RemoveSocketFile() const;

 private:
  struct Client;
  bool Listen(std::string& error);
  void Serve();
  void AcceptClient(Client& client);
  // Reads what a controller sent before it went away (so a client that closed is no longer
  // "the controller" when the next one connects).
  void ReadIfReadable(Client& client);
  // Returns false when the connection must close.
  bool HandleLine(Client& client, const std::string& line);
  void ReadFromClient(Client& client);
  void CloseClient(Client& client);
  std::string StateFields();

  WindowController& controller_;
  std::string socket_path_;
  std::atomic<ino_t> socket_inode_{0};
  runtime::OwnedFd listen_fd_;
  WakePipe wake_;  // Shutdown() wakes Serve()
  pid_t owner_pid_ = 0;
  std::time_t since_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<bool> serving_done_{false};
};

}  // namespace aiprof::dynamic
