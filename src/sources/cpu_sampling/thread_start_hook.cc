// pthread_create interposition (libaiprof_cpusampling.so is preloaded, so its definition
// comes before libc's): while the timer fallback runs, a new thread arms its own SIGPROF
// timer before its start routine runs, so threads shorter than a flush interval are
// sampled too (the writer thread's scan of /proc/self/task at each flush finds only those
// created otherwise). Otherwise (perf_event mode, where the kernel's inherited events
// cover new threads, or no sampling) the hook only forwards the call.
#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <cstdlib>

#include "sources/cpu_sampling/timer_sampler.h"

namespace aiprof::cpu_sampling {
namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

struct StartArgs {
  void* (*start)(void*);
  void* arg;
};

void ReleaseOnExit(void*) {
  TimerSampler::ReleaseCurrentThread();
}

void* StartWithTimer(void* raw) {
  StartArgs args = *static_cast<StartArgs*>(raw);
  std::free(raw);
  TimerSampler::ArmCurrentThread();
  void* result = nullptr;
  // pthread_exit and cancellation unwind through the cleanup handler too.
  pthread_cleanup_push(ReleaseOnExit, nullptr);
  result = args.start(args.arg);
  pthread_cleanup_pop(1);
  return result;
}

CreateFn RealCreate() {
  static CreateFn real = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return real;
}

}  // namespace
}  // namespace aiprof::cpu_sampling

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  using namespace aiprof::cpu_sampling;
  CreateFn real = RealCreate();
  if (real == nullptr) return EAGAIN;
  // Outside the timer mode the thread starts as the program asked (no extra frame).
  if (!TimerSampler::Running()) return real(thread, attr, start, arg);
  // The start routine's arguments travel in a small heap block (as glibc's own thread
  // start does); if it cannot be had, the thread starts unhooked.
  auto* args = static_cast<StartArgs*>(std::malloc(sizeof(StartArgs)));
  if (args == nullptr) return real(thread, attr, start, arg);
  *args = {start, arg};
  int created = real(thread, attr, StartWithTimer, args);
  if (created != 0) std::free(args);
  return created;
}
