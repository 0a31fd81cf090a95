// The calling process's threads, read from /proc/self/task (both samplers arm every thread).
// The directory is opened, read and closed through the plugin API (plugin_fd.h): opendir's
// descriptor would be a raw number a job closing descriptors could take, and closedir would
// then close the job's file.
#pragma once

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sources/plugin_fd.h"

namespace aiprof::cpu_sampling {

inline bool ListProcessThreads(std::vector<uint32_t>* tids, std::string* why) {
  const int tasks = aiprof_fd_open("/proc/self/task", O_RDONLY | O_DIRECTORY);
  if (tasks < 0) {
    *why = std::string("/proc/self/task: ") + std::strerror(errno);
    return false;
  }
  // struct linux_dirent64: inode, offset, record length, type, then the name.
  constexpr size_t kNameAt = 8 + 8 + 2 + 1;
  alignas(8) char buffer[8192];
  while (true) {
    long n = -1;
    if (!sources::UsePluginFd(
            tasks, [&](int fd) { n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer)); })) {
      *why = "/proc/self/task: the job closed the descriptor";
      return false;  // the number is the job's now: not ours to close
    }
    if (n <= 0) break;
    for (long at = 0; at + static_cast<long>(kNameAt) < n;) {
      uint16_t length = 0;
      std::memcpy(&length, buffer + at + 16, sizeof(length));
      if (length == 0) break;
      const char* name = buffer + at + kNameAt;
      if (name[0] != '.') tids->push_back(static_cast<uint32_t>(std::atoi(name)));
      at += length;
    }
  }
  aiprof_fd_close(tasks);
  return true;
}

}  // namespace aiprof::cpu_sampling
