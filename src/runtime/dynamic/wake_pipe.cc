#include "runtime/dynamic/wake_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace aiprof::dynamic {

bool WakePipe::Open() {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const runtime::CloseWatch watch;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    if (watch.AdoptPair(ends, read_, write_)) return true;
  }
  return false;
}

bool WakePipe::Wake() {
  std::lock_guard lock(mutex_);
  return write_.Use([](int fd) {
    char byte = 1;
    ssize_t written = write(fd, &byte, 1);
    (void)written;
  });
}

void WakePipe::Drain(short revents) {
  const bool ours = read_.Use([](int fd) {
    char bytes[64];
    while (read(fd, bytes, sizeof bytes) > 0) {
    }
  });
  if (!ours || (revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
    std::lock_guard lock(mutex_);
    Open();
  }
}

void WakePipe::Close() {
  read_.Close();
  write_.Close();
}

}  // namespace aiprof::dynamic
