// A text log capped at a size: when a line would push the file past the cap, the file
// becomes <path>.1 (replacing the previous .1) and a new file starts. At most twice the
// cap is ever kept, as dynamic_profile's logs are specified. Each line is one write(2) to
// an appending descriptor the runtime owns (owned_fd.h): if the program closed it, the log
// is opened again by path.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

#include "runtime/owned_fd.h"

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
  void OpenLocked();

  std::mutex mutex_;
  std::string path_;
  runtime::OwnedFd file_;
  size_t size_ = 0;
  size_t limit_ = kDefaultLogLimitBytes;
};

}  // namespace aiprof::dynamic
