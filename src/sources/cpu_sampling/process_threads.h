// The calling process's threads, read from /proc/self/task (both samplers arm every thread).
#pragma once

#include <dirent.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace aiprof::cpu_sampling {

inline bool ListProcessThreads(std::vector<uint32_t>* tids, std::string* why) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) {
    *why = std::string("/proc/self/task: ") + std::strerror(errno);
    return false;
  }
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] != '.') tids->push_back(static_cast<uint32_t>(std::atoi(entry->d_name)));
  }
  closedir(tasks);
  return true;
}

}  // namespace aiprof::cpu_sampling
