// The queue between the timer mode's SIGPROF handler (producers: every sampled thread) and
// the writer thread (the one consumer): fixed slots, each claimed with a compare-and-swap,
// in memory mapped when sampling starts (never in the handler) and touched only as far as
// the samples reach. The writer restarts the claim counter at 0 after each drain, so the
// pages in use are those of one flush interval's samples (a few hundred KiB at 99 Hz), not
// the whole queue; a slot still being written when the counter restarts is skipped by the
// next claims (a few probes). The Python frame arrays are a second mapping, made only for a
// process whose Python frames are read. Async-signal-safe on the handler side: atomics and
// plain stores, no allocation, no lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace aiprof::cpu_sampling {

inline constexpr uint32_t kTimerSampleFrames = 126;
inline constexpr uint32_t kTimerSamplePythonFrames = 64;  // deeper stacks keep the innermost

struct TimerSample {
  std::atomic<uint32_t> state;
  uint32_t tid;
  uint32_t frames;
  uint32_t python_frames;
  uint64_t ts;
  bool python_truncated;
  uint64_t ips[kTimerSampleFrames];
};

struct TimerSamplePython {
  uint64_t code[kTimerSamplePythonFrames];
  uint64_t info[kTimerSamplePythonFrames];
};

// Start (writer or starting thread): maps the slots, and the Python arrays when
// `python_frames`, once per process (a later call only adds what is missing). False with
// *why when the memory cannot be mapped.
bool MapTimerSampleQueue(bool python_frames, std::string* why);

// Handler: a slot to fill, or nullptr when the queue is full or not mapped (the caller
// counts a drop); *python: the slot's Python arrays, nullptr without them.
TimerSample* ClaimTimerSample(TimerSamplePython** python);
// Handler: the slot is filled; the writer may read it.
void PublishTimerSample(TimerSample* sample);

// Writer: calls emit(sample, python) for every published slot (python nullptr without the
// arrays), frees the slots and restarts the claim counter.
template <typename Emit>
void DrainTimerSamples(Emit&& emit);
// After fork: the parent's queued samples are dropped.
void DiscardTimerSamples();

namespace timer_queue_detail {
enum SlotState : uint32_t { kFree = 0, kWriting = 1, kReady = 2 };
TimerSample* Slots();
TimerSamplePython* PythonSlots();
uint32_t HighWater();  // slots [0, HighWater()) have been claimed at least once
void RestartClaims();
}  // namespace timer_queue_detail

template <typename Emit>
void DrainTimerSamples(Emit&& emit) {
  using namespace timer_queue_detail;
  TimerSample* slots = Slots();
  if (slots == nullptr) return;
  TimerSamplePython* python = PythonSlots();
  uint32_t end = HighWater();
  for (uint32_t i = 0; i < end; ++i) {
    if (slots[i].state.load(std::memory_order_acquire) != kReady) continue;
    emit(slots[i], python != nullptr ? &python[i] : nullptr);
    slots[i].state.store(kFree, std::memory_order_release);
  }
  RestartClaims();
}

}  // namespace aiprof::cpu_sampling
