// Process-wide runtime state shared by the record path, the writer thread and the control
// API. Lives in static storage and is never destroyed, so threads that still emit records
// during process exit touch valid memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "runtime/block_pool.h"
#include "runtime/string_table.h"
#include "runtime/thread_state.h"

extern "C" {
extern volatile int aiprof_collecting;
// Nonzero while a window is open: kMarkersRecorded when `msproftx` is on, kMarkersCounted when
// it is off (calls are counted, not recorded). Exported: mstx.h tests it inline.
extern volatile int aiprof_markers_active;
}

namespace aiprof::runtime {

struct Runtime {
  BlockPool pool;
  ThreadRegistry threads;
  StringTable strings;
  std::atomic<uint64_t> next_id{1};
  // Wakes the writer thread (producers when blocks run low, signal handlers, control calls):
  // a futex on this counter, so the runtime holds no descriptor for it that a program
  // closing its descriptors could reuse for its own file.
  std::atomic<uint32_t> wake_sequence{0};
  std::atomic<bool> poke_pending{false};
  // Set by the first successful InitStrings / InitBuffers; never reset.
  std::atomic<bool> strings_ready{false};
  std::atomic<bool> buffers_ready{false};
};

Runtime& GetRuntime();

// Sets up the buffers (cap from the first window's options) and string table.
// Idempotent; false (and a message on stderr) if memory cannot be reserved.
bool InitBuffers(uint32_t buffer_mb);
// The string table alone (registered strings and domains may come before any window).
bool InitStrings();

// Async-signal-safe: at most one futex wake per writer wake-up.
void PokeWriter();
// Wakes the writer unconditionally (async-signal-safe: an atomic add and a futex wake).
void WakeWriter();
// The writer thread: sleeps until the wake counter differs from `seen` or `timeout_ms` pass.
void WaitForWake(uint32_t seen, int timeout_ms);

inline uint64_t NextId() {
  return GetRuntime().next_id.fetch_add(1, std::memory_order_relaxed);
}

// Interns through the thread's pointer cache (content verified), else the shared table.
uint32_t InternSlow(ThreadState* state, const char* text, size_t length, InternCacheEntry* entry);

inline uint32_t InternCString(ThreadState* state, const char* text) {
  if (text == nullptr) return 0;
  InternCacheEntry* entry =
      &state->intern_cache[(reinterpret_cast<uintptr_t>(text) >> 3) & (kInternCacheSize - 1)];
  if (entry->pointer == text && std::strcmp(entry->interned, text) == 0) return entry->id;
  return InternSlow(state, text, std::strlen(text), entry);
}

inline uint32_t InternBytes(ThreadState* state, const char* text, size_t length) {
  if (text == nullptr || length == 0) return 0;
  InternCacheEntry* entry =
      &state->intern_cache[(reinterpret_cast<uintptr_t>(text) >> 3) & (kInternCacheSize - 1)];
  if (entry->pointer == text && entry->length == length &&
      std::memcmp(entry->interned, text, length) == 0) {
    return entry->id;
  }
  return InternSlow(state, text, length, entry);
}

// Values of aiprof_markers_active.
inline constexpr int kMarkersOff = 0;
inline constexpr int kMarkersRecorded = 1;
inline constexpr int kMarkersCounted = 2;

// Marker calls made while a window was open with `msproftx` off: the window's stop reports
// them (info.json "markers_ignored") so the launcher can say the program had markers.
extern std::atomic<uint64_t> g_ignored_marker_calls;

// True when the marker call should be recorded; counts the call when markers are off in an
// open window (one relaxed add, the only cost of the disabled path).
inline bool MarkersRecorded() {
  int state = __atomic_load_n(&aiprof_markers_active, __ATOMIC_RELAXED);
  if (state == kMarkersRecorded) return true;
  if (state == kMarkersCounted) g_ignored_marker_calls.fetch_add(1, std::memory_order_relaxed);
  return false;
}

inline bool Collecting() {
  return __atomic_load_n(&aiprof_collecting, __ATOMIC_RELAXED) != 0;
}

}  // namespace aiprof::runtime
