// The process clock every record is stamped with: the invariant TSC when the CPU has one,
// else CLOCK_MONOTONIC_RAW ns. No conversion happens in the process; the writer thread
// records ClockSync samples and the parser fits ticks to ns (docs/raw-format.md).
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define AIPROF_HAVE_RDTSC 1
#endif

extern "C" volatile int aiprof_clock_is_tsc;

namespace aiprof::runtime {

enum class ClockSource { kTsc, kMonotonicRaw };

// Set once by SelectClock() before any record is written.
extern bool g_clock_uses_tsc;

inline uint64_t ReadClockNs(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

inline uint64_t Now() {
#ifdef AIPROF_HAVE_RDTSC
  if (__builtin_expect(g_clock_uses_tsc, 1)) return __rdtsc();
#endif
  return ReadClockNs(CLOCK_MONOTONIC_RAW);
}

// Picks the TSC when it is invariant (CPUID 80000007h EDX bit 8, or constant_tsc and
// nonstop_tsc in /proc/cpuinfo). AIPROF_CLOCK=monotonic_raw forces the fallback.
ClockSource SelectClock();
ClockSource CurrentClockSource();
const char* ClockSourceName(ClockSource source);

// One simultaneous reading of the process clock and the OS clocks.
struct ClockSyncSample {
  uint64_t ticks;
  uint64_t monotonic_raw_ns;
  uint64_t realtime_ns;
};
ClockSyncSample SampleClocks();

// Ticks per second measured between two samples (the nominal rate for a ns clock).
double EstimateTicksPerSecond(const ClockSyncSample& first, const ClockSyncSample& last);

}  // namespace aiprof::runtime
