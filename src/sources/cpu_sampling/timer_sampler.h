// Fallback sampler where perf_event_open is refused (perf_event_paranoid, seccomp): one
// POSIX timer per thread on that thread's CPU-time clock delivering SIGPROF to it. The
// handler walks the frame-pointer chain with async-signal-safe reads (process_vm_readv, so
// a broken chain ends the walk instead of faulting) into a preallocated slot queue; the
// writer thread drains the queue and picks up new threads at every flush.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "sources/cpu_sampling/mappings.h"

namespace aiprof::cpu_sampling {

class TimerSampler {
 public:
  bool Start(uint32_t hz, std::string* why);
  void Drain();  // writer thread: emits queued samples, arms timers for new threads
  void Stop();
  void AbandonAfterFork();

 private:
  bool ArmNewThreads(std::string* why);
  uint32_t hz_ = 99;
  bool running_ = false;
  std::unordered_map<uint32_t, void*> timers_;  // tid → timer_t
  MappingRecorder mappings_;
  uint64_t reported_drops_ = 0;
};

}  // namespace aiprof::cpu_sampling
