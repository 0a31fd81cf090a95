// Fallback sampler where perf_event_open is refused (perf_event_paranoid, seccomp): one
// POSIX timer per thread on that thread's CPU-time clock delivering SIGPROF to it. The
// handler walks the frame-pointer chain with async-signal-safe reads (process_vm_readv, so
// a broken chain ends the walk instead of faulting), and in a CPython process the thread's
// Python frame chain (python_stack.h), into a slot queue mapped at start
// (timer_sample_queue.h); the writer thread drains the queue. Threads are armed when sampling
// starts, by themselves at start (ArmCurrentThread, called by the pthread_create hook in
// thread_start_hook.cc), and, for threads created otherwise (a raw clone), at every flush.
#pragma once

#include <cstdint>
#include <string>

#include "sources/cpu_sampling/mappings.h"
#include "sources/cpu_sampling/python_stack.h"

namespace aiprof::cpu_sampling {

class TimerSampler {
 public:
  // python_frames: the handler also reads the thread's Python frames (EnablePythonStacks).
  bool Start(uint32_t hz, bool python_frames, std::string* why);
  void Drain();  // writer thread: emits queued samples, arms timers for new threads
  void Stop();
  void AbandonAfterFork();
  // On a thread that just started / is about to end (thread_start_hook.cc): arms its timer
  // while timer sampling runs / deletes it. Allocation-free; one timer_create or
  // timer_delete system call.
  static void ArmCurrentThread();
  static void ReleaseCurrentThread();
  // True while the timer mode samples (a relaxed read of one flag).
  static bool Running();

 private:
  bool ArmNewThreads(std::string* why);
  uint32_t hz_ = 99;
  bool running_ = false;
  MappingRecorder mappings_;
  uint64_t reported_drops_ = 0;
  PythonCodeNames python_names_;
  PythonCodeNames::Named python_name_;
};

}  // namespace aiprof::cpu_sampling
