// How the critical path appears in the JSON timeline: one process "Critical path" with one
// lane, "Job path", holding each step's path piece by piece (critical_path.h): an operator's,
// kernel's or wait's self time under its name, a gap or an edge's latency (launch delay,
// hand-off, transit after the last arrival) under its category; args give the category,
// the step, the thread or stream and the rank it is on.
#pragma once

#include <cstdint>

namespace aiprof::exporter {

inline constexpr const char* kCriticalPathProcessName = "Critical path";
inline constexpr const char* kCriticalPathLaneName = "Job path";
inline constexpr const char* kCriticalPathCategory = "critical_path";

// Above any OS pid and every Overlap Analysis process (overlap_tracks.h).
inline constexpr uint32_t kCriticalPathPid = (1u << 30) + (1u << 20);
// After the Overlap Analysis processes.
inline constexpr int64_t kCriticalPathSortIndex = (int64_t{1} << 40) + (int64_t{1} << 20);

}  // namespace aiprof::exporter
