// HTA's idle time breakdown (get_idle_time_breakdown) per stream: the activities of a lane
// (a GPU stream; on CPU-only runs a host thread's outermost framework operators) in start
// order, and each gap between the end of what ran before and the next start classified:
//   host_wait    the next activity's launch call started after the lane had drained (the
//                GPU waited for the CPU to launch);
//   kernel_wait  otherwise, a gap shorter than `consecutive_kernel_delay_ns` (the
//                unavoidable delay between back-to-back kernels; HTA's 30 ns);
//   other        the rest (synchronisation, launch latency, waiting on other streams).
// Launch calls come from the launch → kernel flows ("ac2g"); a lane without them (CPU-only
// runs, activities not launched from a recorded call) has no host_wait.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/device_activity.h"
#include "analysis/result_columns.h"
#include "model/model.h"

namespace aiprof::analysis {

struct IdleTimeOptions {
  int64_t consecutive_kernel_delay_ns = 30;
  // Only what lies inside [window_begin_ns, window_end_ns) counts: busy time and gaps are
  // clipped to it (a gap is still classified by its whole length). The advice judges the
  // steps' span this way, since start-up (imports, CUDA initialisation, warm-up) would
  // otherwise read as the device waiting for the host.
  int64_t window_begin_ns = INT64_MIN;
  int64_t window_end_ns = INT64_MAX;
};

struct IdleTimeRow {
  uint32_t process = 0;  // ProcessTable row (GPU or host process)
  uint32_t thread = 0;   // ThreadTable row (stream or host thread)
  int64_t busy_ns = 0;   // union of the lane's activities
  int64_t host_wait_ns = 0;
  int64_t kernel_wait_ns = 0;
  int64_t other_ns = 0;
  uint64_t host_wait_intervals = 0;
  uint64_t kernel_wait_intervals = 0;
  uint64_t other_intervals = 0;
  bool has_launches = false;  // some activity of the lane is joined to its launch call

  int64_t idle_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
};

// The columns of idle_time_breakdown.csv and IDLE_TIME_BREAKDOWN after the device and the
// stream (thread) the writers put first.
inline constexpr Column<IdleTimeRow> kIdleTimeColumns[] = {
    {"Busy(us)", "busy", "busyNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const IdleTimeRow& r) { return r.busy_ns; }},
    {"Idle(us)", "idle", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const IdleTimeRow& r) { return r.idle_ns(); }},
    {"host_wait(us)", "host_wait", "hostWaitNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const IdleTimeRow& r) { return r.host_wait_ns; }},
    {"kernel_wait(us)", "kernel_wait", "kernelWaitNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const IdleTimeRow& r) { return r.kernel_wait_ns; }},
    {"other(us)", "other", "otherNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const IdleTimeRow& r) { return r.other_ns; }},
    RealColumn<IdleTimeRow>(
        "host_wait_ratio", "host_wait_ratio", "", ColumnUnit::kRatio, kFiles,
        [](const IdleTimeRow& r) { return Share(r.host_wait_ns, r.idle_ns()); }),
    RealColumn<IdleTimeRow>(
        "kernel_wait_ratio", "kernel_wait_ratio", "", ColumnUnit::kRatio, kFiles,
        [](const IdleTimeRow& r) { return Share(r.kernel_wait_ns, r.idle_ns()); }),
    RealColumn<IdleTimeRow>("other_ratio", "other_ratio", "", ColumnUnit::kRatio, kFiles,
                            [](const IdleTimeRow& r) { return Share(r.other_ns, r.idle_ns()); }),
    {"host_wait_intervals", "host_wait_intervals", "hostWaitIntervals", ColumnUnit::kCount,
     kFiles | kDatabase,
     [](const IdleTimeRow& r) { return static_cast<int64_t>(r.host_wait_intervals); }},
    {"kernel_wait_intervals", "kernel_wait_intervals", "kernelWaitIntervals", ColumnUnit::kCount,
     kFiles | kDatabase,
     [](const IdleTimeRow& r) { return static_cast<int64_t>(r.kernel_wait_intervals); }},
    {"other_intervals", "other_intervals", "otherIntervals", ColumnUnit::kCount, kFiles | kDatabase,
     [](const IdleTimeRow& r) { return static_cast<int64_t>(r.other_intervals); }},
    {"Launches Known", "launches_known", "launchesKnown", ColumnUnit::kFlag, kFiles | kDatabase,
     [](const IdleTimeRow& r) -> int64_t { return r.has_launches; }},
};

struct IdleTimeResult {
  ActivitySource source = ActivitySource::kNone;
  std::vector<IdleTimeRow> lanes;  // by process, then thread
};

IdleTimeResult ComputeIdleTime(const model::Model& model, const Activities& activities,
                               const IdleTimeOptions& options = {});

}  // namespace aiprof::analysis
