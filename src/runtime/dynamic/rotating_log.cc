#include "runtime/dynamic/rotating_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace aiprof::dynamic {

RotatingLog::~RotatingLog() = default;

bool RotatingLog::Open(const std::string& path, size_t limit_bytes) {
  std::lock_guard lock(mutex_);
  path_ = path;
  limit_ = limit_bytes;
  OpenLocked();
  return file_.valid();
}

void RotatingLog::OpenLocked() {
  file_ = runtime::OwnedFd::Open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
  struct stat info {};
  size_ = file_.valid() && stat(path_.c_str(), &info) == 0 ? static_cast<size_t>(info.st_size) : 0;
}

void RotatingLog::Write(const char* level, const std::string& message) {
  timeval now{};
  gettimeofday(&now, nullptr);
  tm local{};
  localtime_r(&now.tv_sec, &local);
  char stamp[40];
  size_t length = std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &local);
  std::snprintf(stamp + length, sizeof(stamp) - length, ".%03ld",
                static_cast<long>(now.tv_usec / 1000));
  std::string line = std::string(stamp) + " " + level + " " + message + "\n";

  std::lock_guard lock(mutex_);
  if (path_.empty()) return;
  if (size_ > 0 && size_ + line.size() > limit_) RotateLocked();
  auto write_line = [&](int fd) {
    ssize_t written = write(fd, line.data(), line.size());
    (void)written;
  };
  // The program closed the log's descriptor: open the log again rather than lose the line.
  if (!file_.Use(write_line)) {
    OpenLocked();
    if (!file_.Use(write_line)) return;
  }
  size_ += line.size();
}

void RotatingLog::RotateLocked() {
  file_.Close();
  std::rename(path_.c_str(), (path_ + ".1").c_str());
  OpenLocked();
  size_ = 0;
}

}  // namespace aiprof::dynamic
