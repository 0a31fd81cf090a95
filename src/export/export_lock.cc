#include "export/export_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace aiprof::exporter {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLockName = ".export.lock";

std::string ReadAll(int fd) {
  std::string text;
  char buffer[512];
  ssize_t length;
  lseek(fd, 0, SEEK_SET);
  while ((length = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, length);
  return text;
}

// The lock file holds one line: "pid=<pid> timestamp=<timestamp>" of the export that last
// held it (or holds it).
std::string Field(const std::string& text, const std::string& key) {
  size_t at = text.find(key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 1;
  return text.substr(at, text.find_first_of(" \n", at) - at);
}

}  // namespace

ExportLocks::~ExportLocks() {
  for (const Held& held : held_) {
    flock(held.fd, LOCK_UN);
    close(held.fd);
  }
}

void ExportLocks::Acquire(std::vector<std::string> prof_dirs, std::ostream& err) {
  std::sort(prof_dirs.begin(), prof_dirs.end());
  prof_dirs.erase(std::unique(prof_dirs.begin(), prof_dirs.end()), prof_dirs.end());
  for (const std::string& dir : prof_dirs) {
    const std::string path = dir + "/" + kLockName;
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const std::string holder = ReadAll(fd);
      err << "aiprof export: another export of " << dir << " is running (pid "
          << (Field(holder, "pid").empty() ? "?" : Field(holder, "pid"))
          << "); waiting for it to finish (Ctrl-C to stop waiting)\n";
      while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
    previous_timestamp_ = std::max(previous_timestamp_, Field(ReadAll(fd), "timestamp"));
    held_.push_back({path, fd});
  }
}

void ExportLocks::Record(const std::string& timestamp,
                         const std::vector<std::string>& output_dirs) {
  const std::string line = "pid=" + std::to_string(getpid()) + " timestamp=" + timestamp + "\n";
  for (const Held& held : held_) {
    if (ftruncate(held.fd, 0) == 0 && pwrite(held.fd, line.data(), line.size(), 0) < 0) {
      continue;  // only a hint for the next export
    }
  }
  for (const std::string& dir : output_dirs) RemoveExportLeftovers(dir);
}

void RemoveExportLeftovers(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> leftovers;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && (name.ends_with(".tmp") || name.ends_with(".tmp-journal"))) {
      leftovers.push_back(it->path());
    }
  }
  for (const fs::path& path : leftovers) fs::remove(path, ec);
}

}  // namespace aiprof::exporter
