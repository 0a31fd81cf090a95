// perf_event_open sampler: one software cpu-clock (or hardware cycles) event per thread of
// the process and CPU, inherited by the threads they create, plus a switch event whose
// samples carry the stack a thread blocked in (the filtered sched_switch tracepoint or
// context-switches, blocking_switch_event.h; every blocking switch, or a rate the kernel
// holds, OffCpuStacks). The kernel walks frame-pointer call
// chains and writes samples, thread switches and new mappings into one mmap ring per CPU
// (the kernel refuses to map an inherited per-task event, so every thread's event on a CPU
// is redirected into that CPU's ring, as `perf record` does); Drain() reads the rings on
// the runtime's writer thread, never on a profiled thread. A job that closes the events'
// descriptors (every descriptor above 2) frees them; ReopenClosedEvents opens them again at
// the next flush (perf_sampler_reopen.cc).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "sources/cpu_sampling/blocking_switch_event.h"
#include "sources/cpu_sampling/mappings.h"

namespace aiprof::cpu_sampling {

// Which switch-outs carry the user stack the thread blocked in. The switch records (when
// each thread ran and waited) are kept whatever this says; the stack is what costs: the
// kernel's user call chain adds ~6.5 µs per sample on the measurement VM, whatever the
// depth (docs/cpu-sampling.md), and a job may switch thousands of times a second.
struct OffCpuStacks {
  enum class Kind { kOff, kRate, kEverySwitch };
  Kind kind = Kind::kEverySwitch;
  // kRate: the kernel's frequency mode on the context-switches event (per thread and CPU):
  // a thread that switches less often than this gets every switch-out's stack, a busier
  // one about this many a second.
  uint32_t hz = 1000;
};

class PerfSampler {
 public:
  // Opens the events on every thread of the process. False (and *why) when the kernel
  // refuses perf_event_open (perf_event_paranoid, seccomp, no such event). stack_copy_bytes
  // > 0: call_graph "dwarf", the kernel copies that much of the user stack and the user
  // registers with every on-CPU sample instead of walking frame pointers, and, with the
  // sched_switch tracepoint, at every blocking switch-out besides the chain (unwound
  // offline).
  bool Start(uint32_t hz, uint32_t stack_copy_bytes, OffCpuStacks off_cpu_stacks, std::string* why);
  void Drain();
  // At each flush, before Drain: when the job closed some of the events' descriptors (plugin.h,
  // aiprof_fd_job_closes, then aiprof_fd_use), drains the rings, closes the rest, unmaps the
  // rings and opens the events of every thread again. Returns what a user should read about
  // it (how many the job closed, when, how long until they were open again, what could not
  // be), empty when nothing was closed.
  std::string ReopenClosedEvents();
  void Stop();
  // In a forked child: the rings belong to the parent's events; drop them unread.
  void AbandonAfterFork();
  // "cpu-clock" or "cycles", and whether blocking stacks are sampled at thread switches.
  const std::string& event_name() const { return event_name_; }
  bool off_cpu() const { return off_cpu_; }
  const OffCpuStacks& off_cpu_stacks() const { return off_cpu_stacks_; }
  // The event that took the blocking stacks: "sched_switch" (blocking switch-outs only) or
  // "context-switches" (every switch-out); blocking_switch_event.h.
  const char* off_cpu_event() const { return switch_event_.name; }
  // Bytes of user stack copied per sample; 0: frame-pointer call chains.
  uint32_t stack_copy_bytes() const { return stack_copy_bytes_; }
  // Whether blocking switch-outs get a stack copy besides their chain (dwarf, tracepoint).
  bool blocking_stack_copies() const { return !copy_ids_.empty(); }

 private:
  struct Ring {
    int fd = -1;  // the event whose buffer the CPU's other events write into
    uint8_t* base = nullptr;
    size_t mapped = 0;
  };
  // A power of two of data pages: 4 MiB.
  static constexpr size_t kMaxRingPages = 1024;
  // Opens the events of every thread of the process. Start: the first refusal (other than a
  // thread that exited) fails it all. A reopening (`failed` given): counts the threads that
  // failed in *failed, the last one's reason in *why, and goes on.
  bool OpenProcessThreads(size_t* opened, size_t* failed, std::string* why);
  // Closes the events that are still the sampler's and unmaps the rings.
  void ReleaseEvents();
  bool OpenThread(uint32_t tid, std::string* why);
  bool AttachToRing(int fd, Ring& ring, size_t* pages, std::string* why);
  bool OpenBlockingStackEvent(perf_event_attr* attr, uint32_t tid, size_t cpu, Ring& ring,
                              size_t* pages, std::unordered_set<uint64_t>* ids);
  int OpenSwitchEvent(perf_event_attr* attr, uint32_t tid, int cpu, bool fall_back);
  void DrainRing(Ring& ring);
  void HandleRecord(const uint8_t* record, size_t length, uint16_t type, uint16_t misc);
  void HandleStackCopySample(const uint8_t* body, size_t length, bool off_cpu);
  void NameThread(uint32_t pid, uint32_t tid);

  std::vector<Ring> rings_;  // per CPU; fd -1 for a CPU no event could be opened on
  // Per CPU, with stack copies only: the blocking-stack events' own rings.
  std::vector<Ring> copy_rings_;
  std::vector<int> event_fds_;
  std::unordered_set<uint64_t> switch_ids_;  // blocking-stack events with the chain
  std::unordered_set<uint64_t> copy_ids_;    // the same with the stack copy (dwarf)
  std::vector<uint8_t> scratch_;
  std::vector<uint64_t> frames_;
  MappingRecorder mappings_;
  std::unordered_set<uint32_t> named_tids_;
  std::string event_name_;
  uint32_t event_type_ = 0;
  uint64_t event_config_ = 0;
  uint32_t hz_ = 99;
  // getpid() at Start: the writer compares every record's pid with it (a system call per
  // record otherwise: glibc does not cache the pid).
  uint32_t pid_ = 0;
  uint32_t stack_copy_bytes_ = 0;
  OffCpuStacks off_cpu_stacks_;
  BlockingSwitchEvent switch_event_;
  size_t ring_pages_ = 64;
  size_t copy_ring_pages_ = kMaxRingPages;
  bool inherit_thread_ = true;
  // aiprof_fd_job_closes at the last look, and when sampling started (CLOCK_MONOTONIC_RAW).
  uint64_t seen_job_closes_ = 0;
  uint64_t started_ns_ = 0;
  bool off_cpu_ = false;
  uint64_t lost_ = 0;
};

}  // namespace aiprof::cpu_sampling
