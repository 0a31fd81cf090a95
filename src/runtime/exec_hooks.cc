// exec replaces the process image without running exit handlers, so a window open at that
// moment would stay unfinished (no end time, no stop reason, the last flush interval lost).
// These interpose libc's exec functions (glibc's own execvp/execl... call its internal
// execve, so each entry point is wrapped): the window is closed with stop reason "exec"
// first, and collection resumes if the exec fails. The exec'd program, if it is profiled,
// starts its own window from the environment it inherits.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

#include "runtime/lifecycle.h"
#include "runtime/options.h"
#include "runtime/session.h"

namespace aiprof::runtime {
namespace {

using ExecveFunction = int (*)(const char*, char* const[], char* const[]);
using ExecvFunction = int (*)(const char*, char* const[]);

template <typename Function>
Function Next(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

template <typename Exec>
int AroundExec(Exec exec) {
  Options options;
  bool was_open = OwnsRuntimeState() && StopWindowForExec(&options);
  int result = exec();
  if (was_open) {
    int saved_errno = errno;
    ReopenAfterFailedExec(options);
    errno = saved_errno;
  }
  return result;
}

// The variadic exec functions' arguments, up to the terminating null pointer, as the argv
// array that the vector forms take. `count` is found beforehand with CountArguments.
size_t CountArguments(const char* first, va_list arguments) {
  size_t count = 1;
  if (first == nullptr) return count;
  while (va_arg(arguments, char*) != nullptr) ++count;
  return count + 1;
}

}  // namespace
}  // namespace aiprof::runtime

using aiprof::runtime::AroundExec;
using aiprof::runtime::CountArguments;
using aiprof::runtime::ExecveFunction;
using aiprof::runtime::ExecvFunction;
using aiprof::runtime::Next;

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                  char* const envp[]) noexcept {
  static const auto real = Next<ExecveFunction>("execve");
  return AroundExec([&] { return real(path, argv, envp); });
}

__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) noexcept {
  static const auto real = Next<ExecvFunction>("execv");
  return AroundExec([&] { return real(path, argv); });
}

__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) noexcept {
  static const auto real = Next<ExecvFunction>("execvp");
  return AroundExec([&] { return real(file, argv); });
}

__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                   char* const envp[]) noexcept {
  static const auto real = Next<ExecveFunction>("execvpe");
  return AroundExec([&] { return real(file, argv, envp); });
}

// The list forms collect their arguments into an array on the stack and go through the
// vector forms above.
#define AIPROF_COLLECT_ARGUMENTS(first, last_fixed, argv)                     \
  va_list counting;                                                           \
  va_start(counting, last_fixed);                                             \
  size_t count = CountArguments(first, counting);                             \
  va_end(counting);                                                           \
  char** argv = static_cast<char**>(__builtin_alloca(sizeof(char*) * count)); \
  va_list arguments;                                                          \
  va_start(arguments, last_fixed);                                            \
  argv[0] = const_cast<char*>(first);                                         \
  for (size_t index = 1; index < count; ++index) argv[index] = va_arg(arguments, char*)

__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) noexcept {
  AIPROF_COLLECT_ARGUMENTS(arg, arg, argv);
  va_end(arguments);
  return execv(path, argv);
}

__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) noexcept {
  AIPROF_COLLECT_ARGUMENTS(arg, arg, argv);
  va_end(arguments);
  return execvp(file, argv);
}

__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) noexcept {
  AIPROF_COLLECT_ARGUMENTS(arg, arg, argv);
  char* const* envp = va_arg(arguments, char* const*);
  va_end(arguments);
  return execve(path, argv, envp);
}

}  // extern "C"
