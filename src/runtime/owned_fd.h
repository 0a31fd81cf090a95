// Descriptors the runtime opens inside a program it does not own. A program may close every
// descriptor above 2 (daemons and some launchers do) and open its own files, which then get
// the runtime's old numbers: a write through a remembered number would land in the program's
// file. So every descriptor the runtime keeps is an OwnedFd, and every read or write goes
// through Use(), which runs only while the descriptor is verifiably still the runtime's:
//  - close, close_range, closefrom, dup2 and dup3 are interposed (fd_hooks.cc): closing a
//    registered number first marks it lost and waits until a Use() in progress has ended
//    (both sides sequentially consistent: the user announces itself, then reads `lost`; the
//    closer sets `lost`, then waits for the users), so no Use() starts on a closed number;
//  - Use() also compares the descriptor's device and inode with those it had when adopted
//    (one fstat), which catches closes that bypass libc (a raw close_range system call):
//    such a close is noticed at the next use, never written through after that check.
// A lost descriptor is forgotten, never closed (the number is the program's now); its owner
// reopens what it needs by path. Nothing here is on the record path.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace aiprof::runtime {

class OwnedFd {
 public:
  OwnedFd() = default;
  // Adopts `fd`, just opened by the runtime (-1 stays empty). When the registry is full the
  // descriptor is still verified by identity on each use.
  explicit OwnedFd(int fd);
  // Opens `path` and adopts the descriptor once it is verifiably that file. A program closing
  // descriptors in a loop may close the new number before it is registered and open its own
  // file under it: the descriptor's identity is then not the path's, so the number is left
  // to the program and the path opened again (a few tries). Empty when the file cannot be
  // opened (errno says why) or the program keeps taking the number (errno EBADF).
  static OwnedFd Open(const char* path, int flags, mode_t mode = 0);
  ~OwnedFd() { Close(); }
  OwnedFd(OwnedFd&& other) noexcept;
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  bool valid() const { return fd_ >= 0; }
  // The number, for poll() only: poll reads nothing. Every read and write goes through Use().
  int get() const { return fd_; }

  // Runs `io(fd)` while the descriptor is still the runtime's and returns true; returns
  // false without touching it (and forgets it) when the program closed or replaced it.
  template <typename Io>
  bool Use(Io&& io) {
    if (!Enter()) return false;
    io(fd_);
    Leave();
    return true;
  }

  // Closes the descriptor when it is still the runtime's; forgets it otherwise.
  void Close();
  // Lets go of the descriptor without closing it: its owner found by other means that the
  // number is the program's now.
  void Forget();

 private:
  bool Enter();
  void Leave();

  int fd_ = -1;
  int slot_ = -1;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

// Called by the interposed close/dup2 family (fd_hooks.cc) before the program's call takes
// effect: marks the registered descriptors in `first`..`last` lost and waits until no Use()
// of them is running. Async-signal-safe (atomics and sched_yield only).
void ReleaseOwnedFds(int first, int last);

// A close of a range of numbers (close_range, closefrom) runs from its scan of the registry
// to its system call inside one of these: a descriptor the runtime opens meanwhile (the raw
// file reopened after an earlier close) is not in the scan yet and would be closed under it.
// An OwnedFd adopted while a range close is in progress waits for it to end and keeps the
// number only if it still names the file it opened, and the runtime waits for range closes
// to end before it reopens a lost file (both sides sequentially consistent: the closer counts
// itself, then scans; the runtime registers, then reads the count). Async-signal-safe.
class RangeCloseScope {
 public:
  RangeCloseScope();
  ~RangeCloseScope();
  RangeCloseScope(const RangeCloseScope&) = delete;
  RangeCloseScope& operator=(const RangeCloseScope&) = delete;
};

// Waits (bounded, as a closer waits for a Use()) until no range close is in progress: called
// before the runtime opens a descriptor it lost, so that the new one is not closed with it.
void WaitForRangeCloses();

// Whether a registered descriptor is in `first`..`last` (a scan of the registry, no system
// call: the interposed close() costs the program nothing more for its own descriptors).
bool AnyOwnedFdIn(int first, int last);

// In a fork child, where only the forking thread exists: no Use() is running, whatever the
// parent's threads were doing when it forked.
void ResetOwnedFdUsersAfterFork();

}  // namespace aiprof::runtime
