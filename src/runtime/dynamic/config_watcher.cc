#include "runtime/dynamic/config_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace aiprof::dynamic {

bool ReadWholeFile(const std::string& path, std::string& contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  contents = buffer.str();
  return true;
}

ConfigWatcher::~ConfigWatcher() {
  Stop();
}

bool ConfigWatcher::Start(const std::string& file_path, ChangeCallback on_change,
                          bool force_polling, std::string& error) {
  file_path_ = file_path;
  size_t slash = file_path.rfind('/');
  directory_ = slash == std::string::npos ? "." : file_path.substr(0, slash == 0 ? 1 : slash);
  file_name_ = slash == std::string::npos ? file_path : file_path.substr(slash + 1);
  on_change_ = std::move(on_change);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    error = "eventfd() failed";
    return false;
  }
  if (!force_polling) {
    inotify_fd_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (inotify_fd_ >= 0 && inotify_add_watch(inotify_fd_, directory_.c_str(),
                                              IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
      close(inotify_fd_);
      inotify_fd_ = -1;
    }
  }
  FileChangedSinceLastStat();  // remember the current state: only later edits count
  running_ = true;
  owner_pid_ = getpid();
  thread_ = std::thread([this] { Run(); });
  return true;
}

void ConfigWatcher::Stop() {
  if (!running_.exchange(false)) return;
  if (getpid() != owner_pid_) return;  // a forked child: the thread exists only in the parent
  uint64_t one = 1;
  ssize_t written = write(wake_fd_, &one, sizeof(one));
  (void)written;
  if (thread_.joinable()) thread_.join();
  if (inotify_fd_ >= 0) close(inotify_fd_);
  close(wake_fd_);
  inotify_fd_ = wake_fd_ = -1;
}

bool ConfigWatcher::FileChangedSinceLastStat() {
  struct stat now {};
  bool has_file = stat(file_path_.c_str(), &now) == 0;
  bool changed =
      has_file != had_file_ ||
      (has_file && (now.st_ino != last_stat_.st_ino || now.st_size != last_stat_.st_size ||
                    now.st_mtim.tv_sec != last_stat_.st_mtim.tv_sec ||
                    now.st_mtim.tv_nsec != last_stat_.st_mtim.tv_nsec));
  had_file_ = has_file;
  last_stat_ = now;
  return changed && has_file;
}

void ConfigWatcher::Deliver() {
  std::string contents;
  if (ReadWholeFile(file_path_, contents)) on_change_(contents);
}

void ConfigWatcher::Run() {
  while (running_) {
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
    int count = poll(fds, inotify_fd_ >= 0 ? 2 : 1, inotify_fd_ >= 0 ? -1 : kPollingIntervalMs);
    if (count < 0) continue;
    if (fds[0].revents != 0) return;
    if (inotify_fd_ < 0) {
      if (FileChangedSinceLastStat()) Deliver();
      continue;
    }
    alignas(inotify_event) char buffer[4096];
    bool ours = false;
    ssize_t length;
    while ((length = read(inotify_fd_, buffer, sizeof(buffer))) > 0) {
      for (char* at = buffer; at < buffer + length;) {
        auto* event = reinterpret_cast<inotify_event*>(at);
        // IN_CREATE alone is an empty file about to be written: wait for its close.
        if (event->len > 0 && file_name_ == event->name &&
            (event->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))) {
          ours = true;
        }
        at += sizeof(inotify_event) + event->len;
      }
    }
    if (ours) {
      FileChangedSinceLastStat();
      Deliver();
    }
  }
}

}  // namespace aiprof::dynamic
