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

// Every close of the program (close, close_range, closefrom, and dup2/dup3 onto a number)
// runs from before its scan of the registry to after its system call inside one of these,
// which counts it as in progress and, when it ends, records the numbers it closed (a small
// ring of the latest closes, numbered by a close generation). Two races need it:
//  - a descriptor the runtime registers while a close is in progress is not in that close's
//    scan and may be closed under it: an OwnedFd adopted meanwhile waits for the close to
//    end and keeps the number only if it still names the file it opened, and the runtime
//    waits for closes to end before it reopens a lost file (both sides sequentially
//    consistent: the closer counts itself, then scans; the runtime registers, then reads
//    the count);
//  - a descriptor without a path (a pipe, a socket, inotify) can be closed by the program
//    between its creation and its registration, and the number given to one of the
//    program's files: no stat of a path can tell, the recorded closes can (CloseWatch).
// Async-signal-safe (atomics only).
class ProgramCloseScope {
 public:
  ProgramCloseScope(int first, int last);
  ~ProgramCloseScope();
  ProgramCloseScope(const ProgramCloseScope&) = delete;
  ProgramCloseScope& operator=(const ProgramCloseScope&) = delete;

 private:
  int first_, last_;
};

// Waits (bounded, as a closer waits for a Use()) until no close of the program is in
// progress: called before the runtime opens a descriptor it lost, so that the new one is not
// closed with it.
void WaitForProgramCloses();

// Adopts descriptors made without a path. Begun before the descriptor is made (pipe2,
// socket, accept4, inotify_init1); Adopt() registers it, waits for the program's closes in
// progress to end, and keeps it only if no close since the watch began covered its number.
// A covered number may be the program's file now, so it is left to the program. When more
// closes happened meanwhile than the ring remembers, the number is left too (the descriptor
// leaks if it was not closed: a close storm in microseconds, and never a write to a file
// that is not the runtime's).
class CloseWatch {
 public:
  CloseWatch();
  // A watch begun earlier, from its start() (the plugin API hands it out as a token).
  explicit CloseWatch(uint64_t start) : start_(start) {}
  uint64_t start() const { return start_; }
  // Empty (errno EBADF) when the number may have been closed since the watch began.
  OwnedFd Adopt(int fd) const;
  // Both ends of a pipe made since the watch began; false (both empty, errno EBADF) when
  // either number may have been closed; the end the program did not close is then closed.
  bool AdoptPair(const int (&ends)[2], OwnedFd& read, OwnedFd& write) const;
  // Whether a close of the program since the watch began may have covered `fd`: called once
  // the number is registered (a close that starts later finds it); waits for the closes in
  // progress to end.
  bool MayHaveClosed(int fd) const;

 private:
  uint64_t start_;
};

// A descriptor without a path, made by `make()` (which returns it, or -1 with errno set) and
// adopted through a CloseWatch; made again (a few tries) when the program may have closed
// its number meanwhile. Empty when `make()` fails or the program keeps taking the number
// (errno EBADF).
template <typename Make>
OwnedFd MakeOwnedFd(Make make) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const CloseWatch watch;
    const int fd = make();
    if (fd < 0) return OwnedFd();
    OwnedFd owned = watch.Adopt(fd);
    if (owned.valid()) return owned;
  }
  return OwnedFd();
}

// Whether a registered descriptor is in `first`..`last` (a scan of the registry, no system
// call: the interposed close() costs the program nothing more for its own descriptors).
bool AnyOwnedFdIn(int first, int last);

// In a fork child, where only the forking thread exists: no Use() and no close is running,
// whatever the parent's threads were doing when it forked.
void ResetOwnedFdUsersAfterFork();

}  // namespace aiprof::runtime
