// The clock every CPU sample, mapping and sampler info is stamped with: CLOCK_MONOTONIC_RAW,
// the clock the perf events are told to use (attr.clockid) and the timer handler reads, so
// the importer fits one clock for both modes. Async-signal-safe (the vDSO's clock_gettime).
#pragma once

#include <time.h>

#include <cstdint>

namespace aiprof::cpu_sampling {

inline constexpr clockid_t kSampleClock = CLOCK_MONOTONIC_RAW;

inline uint64_t SampleClockNs() {
  timespec now;
  clock_gettime(kSampleClock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace aiprof::cpu_sampling
