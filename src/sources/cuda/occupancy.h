// Theoretical occupancy of a kernel launch, the arithmetic of
// cudaOccupancyMaxActiveBlocksPerMultiprocessor applied to the launch attributes CUPTI
// reports and the device limits of CUpti_ActivityDevice. "Theoretical": it says how many
// warps the SM could hold, not how many were resident (that needs counters).
#pragma once

#include <cstdint>

#include "format/records_cuda.h"

namespace aiprof::cuda {

struct DeviceLimits {
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t warp_size = 32;
  uint32_t max_warps_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t max_registers_per_sm = 0;
  uint32_t max_registers_per_block = 0;
  uint32_t max_shared_memory_per_sm = 0;
  uint32_t max_shared_memory_per_block = 0;
  uint32_t max_threads_per_block = 0;
  bool known() const { return max_warps_per_sm != 0 && max_blocks_per_sm != 0; }
};

struct LaunchShape {
  uint64_t threads_per_block = 0;
  uint32_t registers_per_thread = 0;
  uint64_t shared_memory_per_block = 0;  // static + dynamic bytes
  uint32_t shared_memory_carveout = 0;   // bytes the driver configured for this launch, 0: max
};

struct Occupancy {
  uint32_t blocks_per_sm = 0;
  uint32_t warps_per_sm = 0;
  double fraction = 0;  // warps_per_sm / max_warps_per_sm
  format::CudaOccupancyLimit limit = format::kOccupancyLimitUnknown;
};

Occupancy TheoreticalOccupancy(const DeviceLimits& device, const LaunchShape& launch);

}  // namespace aiprof::cuda
