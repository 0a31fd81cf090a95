#include "runtime/lifecycle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "runtime/clock.h"
#include "runtime/dynamic/dynamic_entry.h"
#include "runtime/options.h"
#include "runtime/session.h"

namespace aiprof::runtime {

namespace {

// Long enough for the writer to finish a flush on a heavily loaded machine; bounded so a
// stuck writer never keeps a dying process alive.
constexpr int kSignalFlushTimeoutMs = 5000;
constexpr int kHandledSignals[] = {SIGTERM, SIGINT};

struct sigaction g_previous[NSIG];

using ExitFunction = void (*)(int);
ExitFunction g_real_exit = nullptr;
ExitFunction g_real_Exit = nullptr;
// The process the runtime's state belongs to. A vfork child shares that state but has its
// own pid, and must leave it alone when it calls _exit.
std::atomic<pid_t> g_owner_pid{0};
std::once_flag g_signals_once;
std::once_flag g_hooks_once;

void OnTerminationSignal(int signo, siginfo_t* info, void* context) {
  int saved_errno = errno;
  const struct sigaction& previous = g_previous[signo];
  bool previous_is_function = (previous.sa_flags & SA_SIGINFO) ? previous.sa_sigaction != nullptr
                                                               : (previous.sa_handler != SIG_DFL &&
                                                                  previous.sa_handler != SIG_IGN);
  if (previous_is_function) {
    // The program handles the signal itself (and may keep running): flush, then hand over.
    RequestFlushFromSignal(kSignalFlushTimeoutMs);
    errno = saved_errno;
    if (previous.sa_flags & SA_SIGINFO) {
      previous.sa_sigaction(signo, info, context);
    } else {
      previous.sa_handler(signo);
    }
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  // Default action is to terminate: close the window, then die by the same signal.
  RequestStopFromSignal(signo, kSignalFlushTimeoutMs);
  dynamic::RemoveControlSocketFromSignal();
  signal(signo, SIG_DFL);
  errno = saved_errno;
  raise(signo);
}

// glibc's on_exit passes the status given to exit() (or returned from main).
void OnExit(int status, void*) {
  ShutdownForExit("exit", status);
}

// --follow-children=off: programs this process executes must run unprofiled, so the
// launcher's injection is taken out of the environment they inherit (other LD_PRELOAD
// entries stay). Runs in the load constructor, before the program has threads.
void StopInjectionIntoChildren() {
  unsetenv("AIPROF_OPTIONS");
  if (const char* injection = std::getenv("CUDA_INJECTION64_PATH");
      injection != nullptr && std::strstr(injection, "libaiprof") != nullptr) {
    unsetenv("CUDA_INJECTION64_PATH");
  }
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload == nullptr) return;
  std::string kept;
  const char* cursor = preload;
  while (*cursor != '\0') {
    size_t length = std::strcspn(cursor, ": ");
    std::string entry(cursor, length);
    if (!entry.empty() && entry.find("libaiprof") == std::string::npos) {
      kept += (kept.empty() ? "" : " ") + entry;
    }
    cursor += length;
    if (*cursor != '\0') ++cursor;
  }
  if (kept.empty()) {
    unsetenv("LD_PRELOAD");
  } else {
    setenv("LD_PRELOAD", kept.c_str(), 1);
  }
}

void StartFromEnvironment() {
  const char* text = std::getenv("AIPROF_OPTIONS");
  if (text == nullptr || *text == '\0') return;
  Options options;
  std::string error;
  if (!ParseOptions(text, &options, &error)) {
    std::fprintf(stderr, "aiprof: %s; profiling disabled\n", error.c_str());
    return;
  }
  if (!options.follow_children) StopInjectionIntoChildren();
  InstallProcessHooks();
  if (options.mode == "dynamic") return;  // the control channel starts windows
  bool started =
      options.delay_s > 0 ? ScheduleWindow(options, &error) : StartWindow(options, &error);
  if (!started) std::fprintf(stderr, "aiprof: cannot start collection: %s\n", error.c_str());
}

// Current NVTX headers no longer look for an already-loaded (preloaded) tool, only for
// NVTX_INJECTION64_PATH, so point it at this library unless the user chose another tool.
// Runs in the constructor, before the program's threads exist.
void OfferNvtxInjection() {
  if (std::getenv("NVTX_INJECTION64_PATH") != nullptr) return;
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&OfferNvtxInjection), &self) == 0 ||
      self.dli_fname == nullptr || self.dli_fname[0] != '/') {
    return;
  }
  setenv("NVTX_INJECTION64_PATH", self.dli_fname, 0);
}

[[noreturn]] void LeaveImmediately(ExitFunction real, int status) {
  if (getpid() == g_owner_pid.load(std::memory_order_relaxed)) {
    RequestStopForImmediateExit(status, kSignalFlushTimeoutMs);
  }
  if (real != nullptr) real(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

__attribute__((constructor)) void OnLoad() {
  g_owner_pid.store(getpid());
  g_real_exit = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_exit"));
  g_real_Exit = reinterpret_cast<ExitFunction>(dlsym(RTLD_NEXT, "_Exit"));
  SelectClock();
  OfferNvtxInjection();
  dynamic::StartDynamicCollectionIfRequested();  // control socket, dynamic_profile
  StartFromEnvironment();
}

}  // namespace

void InstallSignalHandlers() {
  std::call_once(g_signals_once, [] {
    for (int signo : kHandledSignals) {
      struct sigaction action;
      std::memset(&action, 0, sizeof action);
      action.sa_sigaction = OnTerminationSignal;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      sigaction(signo, &action, &g_previous[signo]);
    }
  });
}

void InstallProcessHooks() {
  std::call_once(g_hooks_once, [] {
    pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork);
    on_exit(OnExit, nullptr);
  });
}

void NoteForkChild() {
  g_owner_pid.store(getpid());
}

bool OwnsRuntimeState() {
  return getpid() == g_owner_pid.load(std::memory_order_relaxed);
}

}  // namespace aiprof::runtime

// Processes that end with _exit (Python's os._exit in DataLoader workers, many forked
// servers) skip exit handlers; interposing it keeps their last flush interval.
// glibc declares _exit without and _Exit with `noexcept` (__THROW), and both noreturn by the
// GNU attribute: the definitions repeat exactly that, as clang requires.
extern "C" __attribute__((noreturn, visibility("default"))) void _exit(int status) {
  aiprof::runtime::LeaveImmediately(aiprof::runtime::g_real_exit, status);
}
extern "C" __attribute__((noreturn, visibility("default"))) void _Exit(int status) noexcept {
  aiprof::runtime::LeaveImmediately(aiprof::runtime::g_real_Exit, status);
}
