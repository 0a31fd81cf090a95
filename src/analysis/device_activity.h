// The busy periods the kernel and idle-time breakdowns (HTA) look at, per "unit":
//   - CUDA runs: each GPU (device process); its kernels, memcpys and memsets, per stream;
//   - CPU-only runs: each host process; its outermost framework operators (cpu_op, and
//     communication ranges "collective_comm"), per host thread;
//   - runs with neither: each host process; its outermost marker ranges (mstx/NVTX), the
//     step ranges and input-wait ranges (analysis/input_wait.h) excepted, as the overlap
//     analysis does.
// Each activity is typed as HTA types kernels (first match wins): COMMUNICATION (NCCL/HCCL
// kernels, collective_comm ranges), MEMORY (memcpy/memset/dma), COMPUTATION (the rest).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

enum class ActivitySource : uint8_t { kNone, kDevice, kFrameworkOps, kMarkers };
// "none", "device kernels", "framework operators", "marker ranges".
std::string_view ActivitySourceName(ActivitySource source);

enum class ActivityType : uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2 };
inline constexpr int kActivityTypes = 3;
std::string_view ActivityTypeName(ActivityType type);  // "COMPUTATION", ...

struct ActivityUnit {
  uint32_t process = 0;             // ProcessTable row: the GPU, or the host process
  std::vector<uint32_t> rows;       // slice rows, by start time
  std::vector<ActivityType> types;  // parallel to rows
};

struct Activities {
  ActivitySource source = ActivitySource::kNone;
  std::vector<ActivityUnit> units;  // by process row
};

Activities SelectActivities(const model::Model& model);

}  // namespace aiprof::analysis
