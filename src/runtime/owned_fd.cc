#include "runtime/owned_fd.h"

#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <utility>

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
// The program's closes between their scan of the registry and the end of their system call
// (ProgramCloseScope).
std::atomic<int> g_closes_in_progress{0};

// The latest closes of the program, by close generation (the count of ended closes): entry
// g % kRecentCloses holds close g once its `generation` reads g (0 while it is written).
constexpr uint64_t kRecentCloses = 256;
struct RecentClose {
  std::atomic<uint64_t> generation{0};
  std::atomic<int> first{0};
  std::atomic<int> last{0};
};
RecentClose g_recent_closes[kRecentCloses];
std::atomic<uint64_t> g_close_generation{0};

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
  // A close that scanned before this registration may close the number under us: let it
  // end, then keep the number only if it is still this file (a close that did not cover it
  // left it open, and forgetting it would leak it).
  if (g_closes_in_progress.load() != 0) {
    WaitForProgramCloses();
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

ProgramCloseScope::ProgramCloseScope(int first, int last) : first_(first), last_(last) {
  g_closes_in_progress.fetch_add(1);
}

ProgramCloseScope::~ProgramCloseScope() {
  const uint64_t generation = g_close_generation.fetch_add(1) + 1;
  RecentClose& entry = g_recent_closes[generation % kRecentCloses];
  entry.generation.store(0);
  entry.first.store(first_);
  entry.last.store(last_);
  entry.generation.store(generation);
  g_closes_in_progress.fetch_sub(1);
}

void WaitForProgramCloses() {
  WaitWhile([] { return g_closes_in_progress.load() != 0; });
}

CloseWatch::CloseWatch() : start_(g_close_generation.load()) {}

// Called with the number registered: a close that starts now finds it in its scan. A close
// whose system call came between the number's creation and its registration began before
// that call, so it is either in progress (waited for) or ended with a generation past the
// watch's start and a recorded range (read back unless overwritten: then assumed to cover).
bool CloseWatch::MayHaveClosed(int fd) const {
  WaitForProgramCloses();
  const uint64_t end = g_close_generation.load();
  if (end - start_ > kRecentCloses) return true;
  for (uint64_t generation = start_ + 1; generation <= end; ++generation) {
    const RecentClose& entry = g_recent_closes[generation % kRecentCloses];
    const uint64_t before = entry.generation.load();
    const int first = entry.first.load();
    const int last = entry.last.load();
    if (before != generation || entry.generation.load() != generation) return true;
    if (first <= fd && fd <= last) return true;
  }
  return false;
}

OwnedFd CloseWatch::Adopt(int fd) const {
  OwnedFd owned(fd);
  if (owned.valid() && MayHaveClosed(fd)) {
    owned.Forget();
    errno = EBADF;
  }
  return owned;
}

bool CloseWatch::AdoptPair(const int (&ends)[2], OwnedFd& read, OwnedFd& write) const {
  OwnedFd read_end(ends[0]);
  OwnedFd write_end(ends[1]);
  // An end whose number was closed is forgotten; the other is still the runtime's and is
  // closed by its OwnedFd.
  if (MayHaveClosed(ends[0])) read_end.Forget();
  if (MayHaveClosed(ends[1])) write_end.Forget();
  if (!read_end.valid() || !write_end.valid()) {
    errno = EBADF;
    return false;
  }
  read = std::move(read_end);
  write = std::move(write_end);
  return true;
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
  g_closes_in_progress.store(0, std::memory_order_relaxed);
}

}  // namespace aiprof::runtime
