#include "runtime/owned_fd.h"

#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace aiprof::runtime {
namespace {

// The runtime keeps a handful of descriptors at a time (the raw file, the control socket and
// its client, the config watcher, two logs, short-lived /proc reads).
constexpr int kSlots = 64;
// A closer waits this long at most for a Use() in progress (a write to a slow disk); a Use()
// that never ends (a handler of the closing thread interrupted it) must not hang the program.
constexpr int kMaxWaitMs = 5000;

struct Slot {
  std::atomic<bool> claimed{false};
  std::atomic<int> fd{-1};
  std::atomic<bool> lost{false};
  std::atomic<int> users{0};
};

// Constant-initialised: the interposed close() may run before any constructor of this library.
Slot g_slots[kSlots];
std::atomic<int> g_high_water{0};
// Range closes between their scan of the registry and their system call (RangeCloseScope).
std::atomic<int> g_range_closes{0};

int Register(int fd) {
  for (int index = 0; index < kSlots; ++index) {
    Slot& slot = g_slots[index];
    bool expected = false;
    if (slot.claimed.load(std::memory_order_relaxed) ||
        !slot.claimed.compare_exchange_strong(expected, true)) {
      continue;
    }
    slot.lost.store(false);
    slot.users.store(0);
    slot.fd.store(fd);
    int high = g_high_water.load();
    while (high < index + 1 && !g_high_water.compare_exchange_weak(high, index + 1)) {
    }
    return index;
  }
  return -1;
}

void Unregister(int index) {
  g_slots[index].fd.store(-1);
  g_slots[index].claimed.store(false);
}

// Spins, then sleeps 100 µs at a time, while `busy()`; gives up after kMaxWaitMs.
template <typename Busy>
void WaitWhile(Busy busy) {
  for (int spins = 0; busy(); ++spins) {
    if (spins < 100) {
      sched_yield();
      continue;
    }
    if (spins > 100 + kMaxWaitMs * 10) return;
    timespec pause{0, 100000};
    nanosleep(&pause, nullptr);
  }
}

void WaitForUsers(const Slot& slot) {
  WaitWhile([&] { return slot.users.load() != 0; });
}

}  // namespace

OwnedFd::OwnedFd(int fd) {
  if (fd < 0) return;
  struct stat info {};
  if (fstat(fd, &info) != 0) return;
  fd_ = fd;
  device_ = info.st_dev;
  inode_ = info.st_ino;
  slot_ = Register(fd);
  // A range close that scanned before this registration may close the number under us:
  // let it end, then keep the number only if it is still this file (a range that did not
  // cover it left it open, and forgetting it would leak it).
  if (g_range_closes.load() != 0) {
    WaitForRangeCloses();
    struct stat now {};
    if (fstat(fd, &now) != 0 || now.st_dev != device_ || now.st_ino != inode_) Forget();
  }
}

OwnedFd OwnedFd::Open(const char* path, int flags, mode_t mode) {
  constexpr int kTries = 4;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    const int fd = open(path, flags | O_CLOEXEC, mode);
    if (fd < 0) return OwnedFd();
    OwnedFd file(fd);
    struct stat named {};
    if (file.valid() && stat(path, &named) == 0 && named.st_dev == file.device_ &&
        named.st_ino == file.inode_) {
      return file;
    }
    file.Forget();
  }
  errno = EBADF;
  return OwnedFd();
}

OwnedFd::OwnedFd(OwnedFd&& other) noexcept
    : fd_(other.fd_), slot_(other.slot_), device_(other.device_), inode_(other.inode_) {
  other.fd_ = -1;
  other.slot_ = -1;
}

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    slot_ = other.slot_;
    device_ = other.device_;
    inode_ = other.inode_;
    other.fd_ = -1;
    other.slot_ = -1;
  }
  return *this;
}

bool OwnedFd::Enter() {
  if (fd_ < 0) return false;
  if (slot_ >= 0) {
    Slot& slot = g_slots[slot_];
    slot.users.fetch_add(1);
    if (slot.lost.load()) {
      slot.users.fetch_sub(1);
      Forget();
      return false;
    }
  }
  struct stat now {};
  if (fstat(fd_, &now) != 0 || now.st_dev != device_ || now.st_ino != inode_) {
    if (slot_ >= 0) g_slots[slot_].users.fetch_sub(1);
    Forget();
    return false;
  }
  return true;
}

void OwnedFd::Leave() {
  if (slot_ >= 0) g_slots[slot_].users.fetch_sub(1);
}

void OwnedFd::Forget() {
  if (fd_ < 0) return;
  if (slot_ >= 0) Unregister(slot_);
  slot_ = -1;
  fd_ = -1;
}

void OwnedFd::Close() {
  if (!Enter()) return;
  // Closed while still announced as a user, straight through the system call: a program's
  // close of this number meanwhile waits for it (and then finds the number free), and the
  // interposed close() would wait for this very use.
  syscall(SYS_close, fd_);
  int slot = slot_;
  slot_ = -1;
  fd_ = -1;
  if (slot >= 0) {
    g_slots[slot].users.fetch_sub(1);
    Unregister(slot);
  }
}

void ReleaseOwnedFds(int first, int last) {
  int high = g_high_water.load();
  for (int index = 0; index < high; ++index) {
    Slot& slot = g_slots[index];
    int fd = slot.fd.load();
    if (fd < 0 || fd < first || fd > last) continue;
    slot.lost.store(true);
    WaitForUsers(slot);
  }
}

RangeCloseScope::RangeCloseScope() {
  g_range_closes.fetch_add(1);
}

RangeCloseScope::~RangeCloseScope() {
  g_range_closes.fetch_sub(1);
}

void WaitForRangeCloses() {
  WaitWhile([] { return g_range_closes.load() != 0; });
}

bool AnyOwnedFdIn(int first, int last) {
  int high = g_high_water.load();
  for (int index = 0; index < high; ++index) {
    int fd = g_slots[index].fd.load();
    if (fd >= 0 && fd >= first && fd <= last) return true;
  }
  return false;
}

void ResetOwnedFdUsersAfterFork() {
  for (Slot& slot : g_slots) slot.users.store(0, std::memory_order_relaxed);
  g_range_closes.store(0, std::memory_order_relaxed);
}

}  // namespace aiprof::runtime
