// A small raw data set with hand-known contents, shared by the model and export tests.
// One process (pid 4242, host "node1", rank 0, CLOCK_MONOTONIC_RAW clock) with:
//   thread 101 "main":   step 1 [1000, 2000) ns ⊃ push "forward" [1100, 1500) ⊃ push "matmul"
//                        [1200, 1300); mark "checkpoint" at 1600; step 2 [2000, 3000) ⊃
//                        push "forward" [2100, 2400) ⊃ push "matmul" [2150, 2350);
//                        start/end range "async" id 7 [1700, 2500) ends on thread 102
//                        (overlaps step 1 partially → moved to lane 1)
//   thread 102 "worker": push "load" [2600, open) → closed at the last timestamp (3000)
//   counters "cpu_usage" (cpu 0) 50 at 1000, 75 at 2000; drops of kind kRangePush on 101: 3
// Monotonic times are realtime − kRealtimeOffset; every ts is relative to kMonotonicBase.
#pragma once

#include <cstdint>
#include <string>

namespace aiprof::testing {

inline constexpr uint32_t kGoldenPid = 4242;
inline constexpr uint64_t kMonotonicBase = 5'000'000'000;              // ns
inline constexpr int64_t kRealtimeOffset = 1'700'000'000'000'000'000;  // realtime − monotonic
inline int64_t GoldenRealtime(uint64_t relative_ns) {
  return static_cast<int64_t>(kMonotonicBase + relative_ns) + kRealtimeOffset;
}

// Creates `<parent>/PROF_000001_20260101000000000_GOLDENDATA000001` and returns its path.
std::string WriteGoldenProfDir(const std::string& parent, bool tsc_clock = false);

}  // namespace aiprof::testing
