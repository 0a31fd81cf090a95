// A text log capped at a size: when a line would push the file past the cap, the file
// becomes <path>.1 (replacing the previous .1) and a new file starts. At most twice the
// cap is ever kept, as dynamic_profile's logs are specified.
#pragma once

#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace aiprof::dynamic {

inline constexpr size_t kDefaultLogLimitBytes = 200 * 1024;

class RotatingLog {
 public:
  RotatingLog() = default;
  ~RotatingLog();
  RotatingLog(const RotatingLog&) = delete;
  RotatingLog& operator=(const RotatingLog&) = delete;

  // Opens (appends to) `path`. Returns false if it cannot be opened; Write then does nothing.
  bool Open(const std::string& path, size_t limit_bytes = kDefaultLogLimitBytes);
  // Writes "<local time> <level> <message>\n".
  void Write(const char* level, const std::string& message);
  const std::string& path() const { return path_; }

 private:
  void RotateLocked();

  std::mutex mutex_;
  std::string path_;
  std::FILE* file_ = nullptr;
  size_t size_ = 0;
  size_t limit_ = kDefaultLogLimitBytes;
};

}  // namespace aiprof::dynamic
