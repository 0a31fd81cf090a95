// Watches one file for changes from a background thread: inotify on its directory (so
// editors that write a new file and rename it are seen too), or, where inotify is not
// available, a stat() every 2 seconds. Calls `on_change` with the new contents. Its
// descriptors are the runtime's own (owned_fd.h): the inotify descriptor is also checked to
// still watch this directory before each read, since every inotify descriptor shares one
// inode; one the program closed is replaced.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "runtime/dynamic/wake_pipe.h"
#include "runtime/owned_fd.h"

namespace aiprof::dynamic {

class ConfigWatcher {
 public:
  using ChangeCallback = std::function<void(const std::string& contents)>;
  static constexpr int kPollingIntervalMs = 2000;

  ConfigWatcher() = default;
  ~ConfigWatcher();
  ConfigWatcher(const ConfigWatcher&) = delete;
  ConfigWatcher& operator=(const ConfigWatcher&) = delete;

  // force_polling: skip inotify (for file systems where it sees no remote changes).
  bool Start(const std::string& file_path, ChangeCallback on_change, bool force_polling,
             std::string& error);
  void Stop();
  bool using_inotify() const { return use_inotify_; }

 private:
  bool OpenInotify();
  bool StillWatching();
  void Run();
  bool FileChangedSinceLastStat();
  void Deliver();

  std::string directory_;
  std::string file_name_;
  std::string file_path_;
  ChangeCallback on_change_;
  bool use_inotify_ = false;
  runtime::OwnedFd inotify_fd_;
  ino_t directory_inode_ = 0;
  WakePipe wake_;  // Stop() wakes Run()
  std::atomic<bool> run_done_{false};
  struct stat last_stat_ {};
  bool had_file_ = false;
  pid_t owner_pid_ = 0;
  std::thread thread_;
  std::atomic<bool> running_{false};
};

// The whole file, or false if it cannot be read.
bool ReadWholeFile(const std::string& path, std::string& contents);

}  // namespace aiprof::dynamic
