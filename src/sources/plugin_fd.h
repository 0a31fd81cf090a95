// C++ over the plugin ABI's descriptor functions (include/aiprof/plugin.h, "Descriptors"):
// every descriptor a source keeps inside the job is made, used and closed through these, so
// a job that closes and reuses the source's numbers never gets its own files touched.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "aiprof/plugin.h"

namespace aiprof::sources {

// Runs io(fd) while `fd` is still the source's; false (io not called) when the job closed it.
template <typename Io>
bool UsePluginFd(int fd, Io&& io) {
  auto call = [](int number, void* context) {
    (*static_cast<std::remove_reference_t<Io>*>(context))(number);
  };
  return aiprof_fd_use(fd, call, &io) == 0;
}

// A descriptor made by `make()` (which returns it, or -1 with errno) and registered; made
// again (a few tries) when the job may have closed its number meanwhile. -1 when make()
// fails (its errno) or the job keeps taking the number (EBADF). A number the job may have
// closed is left: it may be the job's file.
template <typename Make>
int MakePluginFd(Make make) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const uint64_t watch = aiprof_fd_watch();
    const int fd = make();
    if (fd < 0) return -1;
    if (aiprof_fd_adopt(watch, fd) >= 0) return fd;
    if (errno == EMFILE) return -1;
  }
  errno = EBADF;
  return -1;
}

// The contents of a small file (/proc, tracefs), up to `limit` bytes; nullopt when it
// cannot be opened or read, or the job closed the descriptor meanwhile.
inline std::optional<std::string> ReadPluginFile(const char* path, size_t limit = 1 << 26) {
  const int fd = aiprof_fd_open(path, O_RDONLY);
  if (fd < 0) return std::nullopt;
  std::string text;
  bool failed = false;
  char buffer[4096];
  while (!failed && text.size() < limit) {
    ssize_t n = -1;
    if (!UsePluginFd(fd, [&](int number) { n = read(number, buffer, sizeof(buffer)); })) {
      return std::nullopt;  // the job closed it: not the source's to close
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed = n < 0;
      break;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  aiprof_fd_close(fd);
  if (failed) return std::nullopt;
  if (text.size() > limit) text.resize(limit);
  return text;
}

}  // namespace aiprof::sources
