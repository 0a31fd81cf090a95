#include "runtime/dynamic/rotating_log.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <cstdio>
#include <ctime>

namespace aiprof::dynamic {

RotatingLog::~RotatingLog() {
  if (file_ != nullptr) std::fclose(file_);
}

bool RotatingLog::Open(const std::string& path, size_t limit_bytes) {
  std::lock_guard lock(mutex_);
  if (file_ != nullptr) std::fclose(file_);
  path_ = path;
  limit_ = limit_bytes;
  file_ = std::fopen(path.c_str(), "ae");
  struct stat info {};
  size_ =
      file_ != nullptr && stat(path.c_str(), &info) == 0 ? static_cast<size_t>(info.st_size) : 0;
  return file_ != nullptr;
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
  if (file_ == nullptr) return;
  if (size_ > 0 && size_ + line.size() > limit_) RotateLocked();
  if (file_ == nullptr) return;
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
  size_ += line.size();
}

void RotatingLog::RotateLocked() {
  std::fclose(file_);
  std::rename(path_.c_str(), (path_ + ".1").c_str());
  file_ = std::fopen(path_.c_str(), "we");
  size_ = 0;
}

}  // namespace aiprof::dynamic
