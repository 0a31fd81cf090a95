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

struct IdleTimeResult {
  ActivitySource source = ActivitySource::kNone;
  std::vector<IdleTimeRow> lanes;  // by process, then thread
};

IdleTimeResult ComputeIdleTime(const model::Model& model, const Activities& activities,
                               const IdleTimeOptions& options = {});

}  // namespace aiprof::analysis
