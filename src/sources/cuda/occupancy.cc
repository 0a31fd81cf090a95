#include "sources/cuda/occupancy.h"

#include <algorithm>

namespace aiprof::cuda {
namespace {

// Allocation granularities of every architecture since Volta (CUDA occupancy calculator):
// registers are allocated per warp in units of 256, shared memory in units of 128 bytes,
// and from compute capability 8.0 the driver reserves 1 KiB of shared memory per block.
constexpr uint64_t kRegisterAllocationUnit = 256;
constexpr uint64_t kSharedMemoryAllocationUnit = 128;
constexpr uint64_t kReservedSharedMemoryPerBlockAmpere = 1024;

uint64_t RoundUp(uint64_t value, uint64_t unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace

Occupancy TheoreticalOccupancy(const DeviceLimits& device, const LaunchShape& launch) {
  Occupancy result;
  if (!device.known() || launch.threads_per_block == 0 || device.warp_size == 0) return result;
  const uint64_t warps_per_block =
      (launch.threads_per_block + device.warp_size - 1) / device.warp_size;

  uint64_t blocks = device.max_blocks_per_sm;
  result.limit = format::kOccupancyLimitBlocks;
  auto apply = [&](uint64_t limit_blocks, format::CudaOccupancyLimit reason) {
    if (limit_blocks < blocks) {
      blocks = limit_blocks;
      result.limit = reason;
    }
  };
  apply(device.max_warps_per_sm / warps_per_block, format::kOccupancyLimitWarps);

  if (launch.registers_per_thread > 0 && device.max_registers_per_sm > 0) {
    const uint64_t registers_per_warp =
        RoundUp(uint64_t{launch.registers_per_thread} * device.warp_size, kRegisterAllocationUnit);
    const uint64_t registers_per_block = registers_per_warp * warps_per_block;
    if (device.max_registers_per_block > 0 &&
        registers_per_block > device.max_registers_per_block) {
      apply(0, format::kOccupancyLimitRegisters);
    } else {
      const uint64_t warps_by_registers = device.max_registers_per_sm / registers_per_warp;
      apply(warps_by_registers / warps_per_block, format::kOccupancyLimitRegisters);
    }
  }

  uint64_t shared_per_sm = device.max_shared_memory_per_sm;
  if (launch.shared_memory_carveout > 0) {
    shared_per_sm = std::min<uint64_t>(shared_per_sm, launch.shared_memory_carveout);
  }
  if (shared_per_sm > 0) {
    const uint64_t reserved = device.compute_major >= 8 ? kReservedSharedMemoryPerBlockAmpere : 0;
    const uint64_t per_block =
        RoundUp(launch.shared_memory_per_block + reserved, kSharedMemoryAllocationUnit);
    if (per_block > 0) apply(shared_per_sm / per_block, format::kOccupancyLimitSharedMemory);
  }

  result.blocks_per_sm = static_cast<uint32_t>(blocks);
  result.warps_per_sm = static_cast<uint32_t>(blocks * warps_per_block);
  result.fraction = device.max_warps_per_sm == 0
                        ? 0
                        : static_cast<double>(result.warps_per_sm) / device.max_warps_per_sm;
  return result;
}

}  // namespace aiprof::cuda
