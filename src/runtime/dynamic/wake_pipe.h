// The pipe that wakes a service thread blocked in poll() (the config watcher, the control
// server) when it must stop. Both ends are the runtime's own descriptors (owned_fd.h): a
// program may close or take them over (closefrom, dup2), so every use checks them, and the
// service thread replaces a pipe it finds gone, so that a later Wake still reaches it.
#pragma once

#include <mutex>

#include "runtime/owned_fd.h"

namespace aiprof::dynamic {

class WakePipe {
 public:
  // False when pipe2 fails.
  bool Open();
  // What the service thread polls for POLLIN.
  int read_fd() const { return read_.get(); }
  // From any thread; false when the write end is no longer the runtime's.
  bool Wake();
  // On the service thread, after poll() set `revents` for read_fd(): empties the pipe, and
  // opens a new one when the program closed or took this one.
  void Drain(short revents);
  // Once the service thread has ended.
  void Close();

 private:
  std::mutex mutex_;  // Wake against the service thread's replacement of the pipe
  runtime::OwnedFd read_, write_;
};

}  // namespace aiprof::dynamic
