#include "sources/cuda/occupancy.h"

#include <gtest/gtest.h>

namespace aiprof::cuda {
namespace {

// H100 SXM5 limits as CUpti_ActivityDevice5 reports them.
DeviceLimits H100() {
  DeviceLimits device;
  device.compute_major = 9;
  device.warp_size = 32;
  device.max_warps_per_sm = 64;
  device.max_blocks_per_sm = 32;
  device.max_registers_per_sm = 65536;
  device.max_registers_per_block = 65536;
  device.max_shared_memory_per_sm = 233472;
  device.max_shared_memory_per_block = 49152;
  device.max_threads_per_block = 1024;
  return device;
}

LaunchShape Shape(uint64_t threads, uint32_t registers, uint64_t shared) {
  LaunchShape shape;
  shape.threads_per_block = threads;
  shape.registers_per_thread = registers;
  shape.shared_memory_per_block = shared;
  return shape;
}

TEST(Occupancy, SmallKernelIsLimitedByWarps) {
  const Occupancy occupancy = TheoreticalOccupancy(H100(), Shape(256, 16, 0));
  EXPECT_EQ(occupancy.blocks_per_sm, 8u);
  EXPECT_EQ(occupancy.warps_per_sm, 64u);
  EXPECT_DOUBLE_EQ(occupancy.fraction, 1.0);
  EXPECT_EQ(occupancy.limit, format::kOccupancyLimitWarps);
}

TEST(Occupancy, RegisterHeavyKernelIsLimitedByRegisters) {
  // 128 registers x 32 threads = 4096 per warp: 16 warps fit, 2 blocks of 8 warps.
  const Occupancy occupancy = TheoreticalOccupancy(H100(), Shape(256, 128, 0));
  EXPECT_EQ(occupancy.blocks_per_sm, 2u);
  EXPECT_EQ(occupancy.warps_per_sm, 16u);
  EXPECT_DOUBLE_EQ(occupancy.fraction, 0.25);
  EXPECT_EQ(occupancy.limit, format::kOccupancyLimitRegisters);
}

TEST(Occupancy, RegisterAllocationRoundsUpPerWarp) {
  // 40 registers x 32 = 1280 per warp (a multiple of 256): 51 warps → 6 blocks of 8.
  const Occupancy occupancy = TheoreticalOccupancy(H100(), Shape(256, 40, 0));
  EXPECT_EQ(occupancy.blocks_per_sm, 6u);
  // 33 registers round up to 1280 as well (1056 → 1280).
  EXPECT_EQ(TheoreticalOccupancy(H100(), Shape(256, 33, 0)).blocks_per_sm, 6u);
}

TEST(Occupancy, SharedMemoryHeavyKernelIsLimitedBySharedMemory) {
  // 100 KiB + 1 KiB reserved per block: two blocks in 228 KiB.
  const Occupancy occupancy = TheoreticalOccupancy(H100(), Shape(128, 32, 100 * 1024));
  EXPECT_EQ(occupancy.blocks_per_sm, 2u);
  EXPECT_EQ(occupancy.warps_per_sm, 8u);
  EXPECT_EQ(occupancy.limit, format::kOccupancyLimitSharedMemory);
}

TEST(Occupancy, CarveoutBelowTheMaximumLimitsSharedMemory) {
  LaunchShape shape = Shape(128, 32, 16 * 1024);
  shape.shared_memory_carveout = 32 * 1024;  // the driver configured 32 KiB for this launch
  EXPECT_EQ(TheoreticalOccupancy(H100(), shape).blocks_per_sm, 1u);
}

TEST(Occupancy, TinyBlocksAreLimitedByTheBlockCount) {
  const Occupancy occupancy = TheoreticalOccupancy(H100(), Shape(32, 16, 0));
  EXPECT_EQ(occupancy.blocks_per_sm, 32u);
  EXPECT_DOUBLE_EQ(occupancy.fraction, 0.5);
  EXPECT_EQ(occupancy.limit, format::kOccupancyLimitBlocks);
}

TEST(Occupancy, UnknownDeviceOrEmptyLaunchGivesZero) {
  EXPECT_EQ(TheoreticalOccupancy(DeviceLimits{}, Shape(256, 16, 0)).warps_per_sm, 0u);
  EXPECT_EQ(TheoreticalOccupancy(H100(), Shape(0, 16, 0)).limit, format::kOccupancyLimitUnknown);
}

TEST(Occupancy, BlockNeedingMoreRegistersThanTheBlockLimitCannotRun) {
  // 1024 threads x 255 registers is beyond 65536 registers per block.
  EXPECT_EQ(TheoreticalOccupancy(H100(), Shape(1024, 255, 0)).blocks_per_sm, 0u);
}

}  // namespace
}  // namespace aiprof::cuda
