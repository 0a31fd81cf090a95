#include "sources/cpu_sampling/timer_sample_queue.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

namespace aiprof::cpu_sampling {

namespace {

using timer_queue_detail::kFree;
using timer_queue_detail::kReady;
using timer_queue_detail::kWriting;

constexpr uint32_t kQueueSlots = 4096;
constexpr uint32_t kClaimProbes = 8;

std::atomic<TimerSample*> g_slots{nullptr};
std::atomic<TimerSamplePython*> g_python{nullptr};
std::atomic<uint64_t> g_next{0};
std::atomic<uint32_t> g_high_water{0};

void* MapZeroed(size_t bytes, std::string* why) {
  // Anonymous memory is zero (every slot kFree) and takes no RAM until a slot is written.
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory != MAP_FAILED) return memory;
  *why = std::string("mmap of the sample queue: ") + std::strerror(errno);
  return nullptr;
}

}  // namespace

// The mappings stay for the life of the process: a signal already pending when sampling
// stops may still write a slot.
bool MapTimerSampleQueue(bool python_frames, std::string* why) {
  if (g_slots.load(std::memory_order_acquire) == nullptr) {
    void* slots = MapZeroed(sizeof(TimerSample) * kQueueSlots, why);
    if (slots == nullptr) return false;
    g_slots.store(static_cast<TimerSample*>(slots), std::memory_order_release);
  }
  if (python_frames && g_python.load(std::memory_order_acquire) == nullptr) {
    void* python = MapZeroed(sizeof(TimerSamplePython) * kQueueSlots, why);
    if (python == nullptr) return false;
    g_python.store(static_cast<TimerSamplePython*>(python), std::memory_order_release);
  }
  return true;
}

TimerSample* ClaimTimerSample(TimerSamplePython** python) {
  TimerSample* slots = g_slots.load(std::memory_order_acquire);
  if (slots == nullptr) return nullptr;
  uint64_t first = g_next.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t probe = 0; probe < kClaimProbes; ++probe) {
    uint32_t index = static_cast<uint32_t>((first + probe) % kQueueSlots);
    uint32_t expected = kFree;
    if (!slots[index].state.compare_exchange_strong(expected, kWriting,
                                                    std::memory_order_acquire)) {
      continue;
    }
    uint32_t high = g_high_water.load(std::memory_order_relaxed);
    while (high < index + 1 &&
           !g_high_water.compare_exchange_weak(high, index + 1, std::memory_order_release,
                                               std::memory_order_relaxed)) {
    }
    TimerSamplePython* arrays = g_python.load(std::memory_order_acquire);
    *python = arrays != nullptr ? &arrays[index] : nullptr;
    return &slots[index];
  }
  return nullptr;
}

void PublishTimerSample(TimerSample* sample) {
  sample->state.store(kReady, std::memory_order_release);
}

void DiscardTimerSamples() {
  TimerSample* slots = g_slots.load(std::memory_order_relaxed);
  uint32_t end = g_high_water.load(std::memory_order_relaxed);
  for (uint32_t i = 0; slots != nullptr && i < end; ++i) {
    slots[i].state.store(kFree, std::memory_order_relaxed);
  }
  g_next.store(0, std::memory_order_relaxed);
}

namespace timer_queue_detail {

TimerSample* Slots() {
  return g_slots.load(std::memory_order_acquire);
}

TimerSamplePython* PythonSlots() {
  return g_python.load(std::memory_order_acquire);
}

uint32_t HighWater() {
  return g_high_water.load(std::memory_order_acquire);
}

void RestartClaims() {
  // Only when no handler claimed a slot since this read: the slots below were just drained
  // (or are being written, and the probes skip them).
  uint64_t next = g_next.load(std::memory_order_relaxed);
  g_next.compare_exchange_strong(next, 0, std::memory_order_relaxed);
}

}  // namespace timer_queue_detail

}  // namespace aiprof::cpu_sampling
