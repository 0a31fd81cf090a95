// close, close_range, closefrom, dup2 and dup3, interposed (exported by the library): a
// program that closes or replaces one of the runtime's descriptors first takes it away from
// the runtime (owned_fd.h), so the runtime never writes to the number once the program may
// reuse it, and every close is recorded (ProgramCloseScope) so that a descriptor the runtime
// is adopting is not taken from under it. Everything else passes straight to libc.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include "runtime/lifecycle.h"
#include "runtime/owned_fd.h"

namespace aiprof::runtime {
namespace {

using CloseFunction = int (*)(int);
using CloseRangeFunction = int (*)(unsigned int, unsigned int, int);
using CloseFromFunction = void (*)(int);
using Dup2Function = int (*)(int, int);
using Dup3Function = int (*)(int, int, int);

// Resolved when the library loads; a call that comes earlier (another library's constructor)
// goes to the system call itself.
CloseFunction g_close = nullptr;
CloseRangeFunction g_close_range = nullptr;
CloseFromFunction g_closefrom = nullptr;
Dup2Function g_dup2 = nullptr;
Dup3Function g_dup3 = nullptr;

template <typename Function>
Function Next(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

__attribute__((constructor(101))) void ResolveDescriptorFunctions() {
  g_close = Next<CloseFunction>("close");
  g_close_range = Next<CloseRangeFunction>("close_range");
  g_closefrom = Next<CloseFromFunction>("closefrom");
  g_dup2 = Next<Dup2Function>("dup2");
  g_dup3 = Next<Dup3Function>("dup3");
}

// A vfork child shares the runtime's memory but has its own descriptor table: what it
// closes is not the runtime's.
void Release(int first, int last) {
  if (first <= last && AnyOwnedFdIn(first, last) && OwnsRuntimeState()) {
    ReleaseOwnedFds(first, last);
  }
}

int ToInt(unsigned int value) {
  return value > static_cast<unsigned int>(INT_MAX) ? INT_MAX : static_cast<int>(value);
}

}  // namespace
}  // namespace aiprof::runtime

using namespace aiprof::runtime;

extern "C" {

__attribute__((visibility("default"))) int close(int fd) {
  ProgramCloseScope closing(fd, fd);
  if (fd >= 0) Release(fd, fd);
  return g_close != nullptr ? g_close(fd) : static_cast<int>(syscall(SYS_close, fd));
}

__attribute__((visibility("default"))) int close_range(unsigned int first, unsigned int last,
                                                       int flags) noexcept {
  auto close_them = [&] {
    return g_close_range != nullptr
               ? g_close_range(first, last, flags)
               : static_cast<int>(syscall(SYS_close_range, first, last, flags));
  };
  // CLOSE_RANGE_CLOEXEC only marks the descriptors; the runtime's are close-on-exec already.
  if ((flags & CLOSE_RANGE_CLOEXEC) != 0) return close_them();
  ProgramCloseScope closing(ToInt(first), ToInt(last));
  Release(ToInt(first), ToInt(last));
  return close_them();
}

__attribute__((visibility("default"))) void closefrom(int lowest) noexcept {
  ProgramCloseScope closing(lowest < 0 ? 0 : lowest, INT_MAX);
  Release(lowest < 0 ? 0 : lowest, INT_MAX);
  if (g_closefrom != nullptr) {
    g_closefrom(lowest);
  } else {
    syscall(SYS_close_range, static_cast<unsigned int>(lowest < 0 ? 0 : lowest), ~0u, 0);
  }
}

__attribute__((visibility("default"))) int dup2(int old_fd, int new_fd) noexcept {
  ProgramCloseScope closing(new_fd, new_fd);
  if (old_fd != new_fd && new_fd >= 0) Release(new_fd, new_fd);
  if (g_dup2 != nullptr) return g_dup2(old_fd, new_fd);
  if (old_fd == new_fd) return fcntl(old_fd, F_GETFD) < 0 ? -1 : new_fd;
  return static_cast<int>(syscall(SYS_dup3, old_fd, new_fd, 0));
}

__attribute__((visibility("default"))) int dup3(int old_fd, int new_fd, int flags) noexcept {
  ProgramCloseScope closing(new_fd, new_fd);
  if (old_fd != new_fd && new_fd >= 0) Release(new_fd, new_fd);
  return g_dup3 != nullptr ? g_dup3(old_fd, new_fd, flags)
                           : static_cast<int>(syscall(SYS_dup3, old_fd, new_fd, flags));
}

}  // extern "C"
