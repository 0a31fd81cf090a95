#include "runtime/plugin_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "aiprof/plugin.h"
#include "runtime/bounded_wait.h"
#include "runtime/clock.h"

namespace aiprof::runtime {
namespace {

constexpr int kWordBits = 64;
constexpr int kWords = kPluginFdBound / kWordBits;

// Constant-initialised (zero): the interposed close() may run before any constructor.
std::atomic<uint64_t> g_owned[kWords];
// One past the highest number ever registered: what a range close scans.
std::atomic<int> g_end{0};
// The plugins' uses and closes in progress (ClosePluginFd counts in both).
std::atomic<int> g_users{0};
std::atomic<int> g_closing{0};
// The program's closes inside ReleasePluginFds: a second close of a number the first one
// unregistered finds its bit clear and waits as the first does.
std::atomic<int> g_releasing{0};
// The registered numbers the program's closes unregistered, and when the latest such close
// came (CLOCK_MONOTONIC_RAW ns): a plugin compares the count with the one it last saw.
std::atomic<uint64_t> g_program_closes{0};
std::atomic<uint64_t> g_program_close_ns{0};

std::atomic<uint64_t>& WordOf(int fd) {
  return g_owned[fd / kWordBits];
}

uint64_t BitOf(int fd) {
  return uint64_t{1} << (fd % kWordBits);
}

bool InRange(int fd) {
  return fd >= 0 && fd < kPluginFdBound;
}

// Calls visit(word, mask) for the words of `first`..`last` below g_end, `mask` the bits of
// the range in that word; stops when visit returns true and returns whether one did.
template <typename Visit>
bool AnyWord(int first, int last, Visit visit) {
  const int end = g_end.load();
  if (first < 0) first = 0;
  if (last >= end) last = end - 1;
  if (first > last) return false;
  const int first_word = first / kWordBits;
  const int last_word = last / kWordBits;
  for (int word = first_word; word <= last_word; ++word) {
    uint64_t mask = ~uint64_t{0};
    if (word == first_word) mask &= ~uint64_t{0} << (first % kWordBits);
    if (word == last_word) mask &= ~uint64_t{0} >> (kWordBits - 1 - last % kWordBits);
    if (visit(g_owned[word], mask)) return true;
  }
  return false;
}

void WaitForUsers() {
  WaitWhile([] { return g_users.load() != 0; });
}

}  // namespace

bool AdoptPluginFd(const CloseWatch& watch, int fd) {
  if (fd < 0) {
    errno = EBADF;
    return false;
  }
  if (fd >= kPluginFdBound) {
    errno = EMFILE;
    return false;
  }
  int end = g_end.load();
  while (end < fd + 1 && !g_end.compare_exchange_weak(end, fd + 1)) {
  }
  // Registered first: a close that starts now finds the bit; one that came earlier is in
  // the watch's record.
  WordOf(fd).fetch_or(BitOf(fd));
  if (watch.MayHaveClosed(fd)) {
    WordOf(fd).fetch_and(~BitOf(fd));
    errno = EBADF;
    return false;
  }
  return true;
}

int OpenPluginFd(const char* path, int flags) {
  constexpr int kTries = 4;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    const CloseWatch watch;
    const int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0) return -1;
    if (AdoptPluginFd(watch, fd)) return fd;
    if (errno == EMFILE) return -1;
  }
  errno = EBADF;
  return -1;
}

bool UsePluginFd(int fd, void (*io)(int fd, void* context), void* context) {
  if (!InRange(fd) || io == nullptr) {
    errno = EBADF;
    return false;
  }
  g_users.fetch_add(1);
  if ((WordOf(fd).load() & BitOf(fd)) == 0) {
    g_users.fetch_sub(1);
    errno = EBADF;
    return false;
  }
  io(fd, context);
  g_users.fetch_sub(1);
  return true;
}

bool ClosePluginFd(int fd) {
  if (!InRange(fd)) {
    errno = EBADF;
    return false;
  }
  // Counted before the bit is cleared: a program's close of this number that finds the bit
  // already clear sees the count and waits for this system call (ReleasePluginFds).
  g_closing.fetch_add(1);
  g_users.fetch_add(1);
  const bool owned = (WordOf(fd).fetch_and(~BitOf(fd)) & BitOf(fd)) != 0;
  // Straight through the system call: the interposed close() would wait for this very use.
  if (owned) syscall(SYS_close, fd);
  g_users.fetch_sub(1);
  g_closing.fetch_sub(1);
  if (!owned) errno = EBADF;
  return owned;
}

bool AnyPluginFdIn(int first, int last) {
  if (AnyWord(first, last, [](std::atomic<uint64_t>& word, uint64_t mask) {
        return (word.load() & mask) != 0;
      })) {
    return true;
  }
  // Read after the bits: whoever cleared one before the scan (a plugin's close, another
  // close of the program) counted itself before it cleared it, and is counted until the
  // uses it must wait for have ended.
  return g_closing.load() != 0 || g_releasing.load() != 0;
}

void ReleasePluginFds(int first, int last) {
  g_releasing.fetch_add(1);
  uint64_t cleared = 0;
  AnyWord(first, last, [&](std::atomic<uint64_t>& word, uint64_t mask) {
    if ((word.load() & mask) != 0) {
      cleared += static_cast<uint64_t>(__builtin_popcountll(word.fetch_and(~mask) & mask));
    }
    return false;
  });
  if (cleared > 0) {
    // The time first: a plugin that sees the new count reads a time at least this late.
    g_program_close_ns.store(ReadClockNs(CLOCK_MONOTONIC_RAW));
    g_program_closes.fetch_add(cleared);
  }
  if (cleared > 0 || g_closing.load() != 0 || g_releasing.load() > 1) WaitForUsers();
  g_releasing.fetch_sub(1);
}

uint64_t ProgramClosesOfPluginFds(uint64_t* last_close_ns) {
  const uint64_t count = g_program_closes.load();
  if (last_close_ns != nullptr) *last_close_ns = g_program_close_ns.load();
  return count;
}

void ResetPluginFdUsersAfterFork() {
  g_users.store(0, std::memory_order_relaxed);
  g_closing.store(0, std::memory_order_relaxed);
  g_releasing.store(0, std::memory_order_relaxed);
}

}  // namespace aiprof::runtime

// The plugin ABI's descriptor functions (include/aiprof/plugin.h).
#define AIPROF_EXPORT extern "C" __attribute__((visibility("default")))

using namespace aiprof::runtime;

AIPROF_EXPORT uint64_t aiprof_fd_watch(void) {
  return CloseWatch().start();
}

AIPROF_EXPORT int aiprof_fd_adopt(uint64_t watch, int fd) {
  return AdoptPluginFd(CloseWatch(watch), fd) ? fd : -1;
}

AIPROF_EXPORT int aiprof_fd_open(const char* path, int flags) {
  if (path == nullptr) {
    errno = EINVAL;
    return -1;
  }
  return OpenPluginFd(path, flags);
}

AIPROF_EXPORT int aiprof_fd_use(int fd, aiprof_fd_io_fn io, void* context) {
  return UsePluginFd(fd, io, context) ? 0 : -1;
}

AIPROF_EXPORT int aiprof_fd_close(int fd) {
  return ClosePluginFd(fd) ? 0 : -1;
}

AIPROF_EXPORT uint64_t aiprof_fd_job_closes(uint64_t* last_close_ns) {
  return ProgramClosesOfPluginFds(last_close_ns);
}
