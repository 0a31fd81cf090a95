// The plugins' descriptors (include/aiprof/plugin.h, "Descriptors"). A plugin loaded into the
// job (CPU sampling: one perf event per thread, CPU and event, thousands of them; short
// /proc and tracefs reads) keeps numbers a program closing every descriptor above 2 may take
// and reuse for its own files. OwnedFd's 64 slots cannot hold thousands, and a perf event's
// anonymous inode is every other perf event's, so no fstat tells the plugin's from the
// program's. The registry is a bitmap of the numbers the plugins own, with one count of the
// plugins' uses in progress:
//  - the interposed close family (fd_hooks.cc) clears the bits of the numbers it closes and,
//    when it cleared one (or a plugin close is in progress), waits until no use is running
//    (both sides sequentially consistent: a user counts itself, then reads its bit; the
//    closer clears the bits, then reads the count), so no use starts on a closed number;
//  - a plugin registers a number through a CloseWatch begun before it made the descriptor,
//    so a close of the program between the creation and the registration leaves the number
//    to the program;
//  - a plugin closes a number only while it is still registered, clearing the bit before
//    the system call while counted as a user and as a closer: a program's close of the same
//    number meanwhile waits for that system call.
// Numbers from kPluginFdBound up are not registered (the descriptor is left, never used).
// Async-signal-safe where the close hook calls it (atomics only). Not on the record path.
#pragma once

#include "runtime/owned_fd.h"

namespace aiprof::runtime {

// One bit per number below this: 128 KiB of zero-initialised memory, of which only the pages
// of numbers ever registered become resident. Linux's default limit on open descriptors
// (fs.nr_open) is the same 1 << 20.
constexpr int kPluginFdBound = 1 << 20;

// Registers `fd`, made since `watch` began. False, the number left unregistered and
// untouched: errno EBADF when a close of the program since the watch may have covered it
// (the number may be the program's now), EMFILE when it is kPluginFdBound or above.
bool AdoptPluginFd(const CloseWatch& watch, int fd);

// Opens `path` (close-on-exec) and registers it, a few tries while the program takes the
// number; -1 with errno when it cannot be opened or registered.
int OpenPluginFd(const char* path, int flags);

// Runs io(fd, context) while `fd` is a registered number and returns true; false (errno
// EBADF) without calling it otherwise.
bool UsePluginFd(int fd, void (*io)(int fd, void* context), void* context);

// Closes `fd` if it is still registered and returns true; false (errno EBADF), the number
// left alone, otherwise.
bool ClosePluginFd(int fd);

// Whether a registered number is in `first`..`last`, or a plugin's close is in progress (a
// scan of the words up to the highest number ever registered; no system call).
bool AnyPluginFdIn(int first, int last);

// Called by the interposed close family before the program's call takes effect: unregisters
// the numbers in `first`..`last` and waits (bounded, as for OwnedFd) for the plugins' uses
// in progress when it unregistered one or a plugin's close is in progress.
void ReleasePluginFds(int first, int last);

// How many registered numbers the program's closes have unregistered (ReleasePluginFds), and
// in *last_close_ns (when given) the CLOCK_MONOTONIC_RAW time of the latest close that
// unregistered one (0: none yet).
uint64_t ProgramClosesOfPluginFds(uint64_t* last_close_ns);

// In a fork child, where only the forking thread exists.
void ResetPluginFdUsersAfterFork();

}  // namespace aiprof::runtime
