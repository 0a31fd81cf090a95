#include "runtime/dynamic/config_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
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

bool ConfigWatcher::OpenInotify() {
  struct stat directory {};
  if (stat(directory_.c_str(), &directory) != 0) return false;
  directory_inode_ = directory.st_ino;
  runtime::OwnedFd watch =
      runtime::MakeOwnedFd([] { return inotify_init1(IN_CLOEXEC | IN_NONBLOCK); });
  bool added = false;
  watch.Use([&](int fd) {
    added =
        inotify_add_watch(fd, directory_.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) >= 0;
  });
  if (!added) return false;
  inotify_fd_ = std::move(watch);
  return true;
}

// Every inotify descriptor has the same inode, so the identity check of OwnedFd cannot tell
// this one from one the program made with the same number: its watch list can
// (/proc/self/fdinfo names the watched inode in hex).
bool ConfigWatcher::StillWatching() {
  std::ifstream info("/proc/self/fdinfo/" + std::to_string(inotify_fd_.get()));
  char inode[32];
  std::snprintf(inode, sizeof inode, " ino:%lx ", static_cast<unsigned long>(directory_inode_));
  std::string line;
  while (std::getline(info, line)) {
    if (line.starts_with("inotify wd:") && (line + " ").find(inode) != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool ConfigWatcher::Start(const std::string& file_path, ChangeCallback on_change,
                          bool force_polling, std::string& error) {
  file_path_ = file_path;
  size_t slash = file_path.rfind('/');
  directory_ = slash == std::string::npos ? "." : file_path.substr(0, slash == 0 ? 1 : slash);
  file_name_ = slash == std::string::npos ? file_path : file_path.substr(slash + 1);
  on_change_ = std::move(on_change);
  if (!wake_.Open()) {
    error = "pipe() failed";
    return false;
  }
  use_inotify_ = !force_polling && OpenInotify();
  FileChangedSinceLastStat();  // remember the current state: only later edits count
  running_ = true;
  run_done_ = false;
  owner_pid_ = getpid();
  // Signals blocked in the thread: the program's signals go to its own threads.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  thread_ = std::thread([this] { Run(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return true;
}

void ConfigWatcher::Stop() {
  if (!running_.exchange(false)) return;
  if (getpid() != owner_pid_) return;  // a forked child: the thread exists only in the parent
  wake_.Wake();
  // Without inotify the thread wakes every 2 s anyway; a wake pipe the program took over is
  // noticed within the same bound.
  for (int waited = 0; !run_done_.load() && waited < kPollingIntervalMs + 500; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!run_done_.load()) {
    thread_.detach();
    return;
  }
  thread_.join();
  if (inotify_fd_.valid() && !StillWatching()) inotify_fd_.Forget();
  inotify_fd_.Close();
  wake_.Close();
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
    pollfd fds[2] = {{wake_.read_fd(), POLLIN, 0}, {inotify_fd_.get(), POLLIN, 0}};
    // Polling mode wakes every 2 s; with inotify, a descriptor the program took (noticed
    // below) is replaced and the directory checked by stat() meanwhile.
    bool watching = inotify_fd_.valid();
    int count = poll(fds, 2, watching ? -1 : kPollingIntervalMs);
    if (!running_) break;
    if (count < 0) continue;
    if (fds[0].revents != 0) {
      wake_.Drain(fds[0].revents);
      continue;
    }
    if (!watching) {
      if (use_inotify_) OpenInotify();
      if (FileChangedSinceLastStat()) Deliver();
      continue;
    }
    if (fds[1].revents == 0) continue;
    if (!StillWatching()) {
      inotify_fd_.Forget();  // not closed: the number is the program's now
      OpenInotify();
      if (FileChangedSinceLastStat()) Deliver();
      continue;
    }
    alignas(inotify_event) char buffer[4096];
    bool ours = false;
    inotify_fd_.Use([&](int fd) {
      ssize_t length;
      while ((length = read(fd, buffer, sizeof(buffer))) > 0) {
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
    });
    if (ours) {
      FileChangedSinceLastStat();
      Deliver();
    }
  }
  run_done_ = true;
}

}  // namespace aiprof::dynamic
