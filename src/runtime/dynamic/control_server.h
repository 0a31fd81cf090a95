// The job side of dynamic collection: a background thread serving the line protocol of
// protocol.h on the Unix socket aiprof_dynamic_<pid> (mode 0600). One controlling client at
// a time; the thread sleeps in poll() so a command is handled as soon as it arrives and an
// idle job pays nothing.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <ctime>
#include <string>
#include <thread>

#include "runtime/dynamic/window_controller.h"

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

 private:
  struct Client;
  void Serve();
  void AcceptClient(Client& client);
  // Returns false when the connection must close.
  bool HandleLine(Client& client, const std::string& line);
  void ReadFromClient(Client& client);
  void CloseClient(Client& client);
  std::string StateFields();

  WindowController& controller_;
  std::string socket_path_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: Shutdown() wakes the poll
  pid_t owner_pid_ = 0;
  std::time_t since_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

}  // namespace aiprof::dynamic
