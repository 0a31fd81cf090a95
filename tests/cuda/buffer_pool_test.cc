#include "sources/cuda/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace aiprof::cuda {
namespace {

TEST(BufferPool, HandsOutAlignedBuffersUpToItsBound) {
  BufferPool pool(BufferPool::kDefaultBufferBytes, 2);
  uint8_t* first = pool.Acquire();
  uint8_t* second = pool.Acquire();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 8, 0u);
  EXPECT_EQ(pool.buffer_bytes(), 4u << 20);
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.refused(), 1u);
  EXPECT_EQ(pool.in_use(), 2u);
  pool.Release(first);
  pool.Release(second);
}

TEST(BufferPool, ReusesReleasedBuffersWithoutAllocatingMore) {
  BufferPool pool(4096, 4);
  uint8_t* buffer = pool.Acquire();
  pool.Release(buffer);
  EXPECT_EQ(pool.Acquire(), buffer);
  EXPECT_EQ(pool.allocated(), 1u);
  pool.Release(buffer);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(BufferPool, IgnoresBuffersItDidNotHandOut) {
  BufferPool pool(4096, 1);
  uint8_t foreign[16];
  pool.Release(foreign);
  pool.Release(nullptr);
  EXPECT_EQ(pool.allocated(), 0u);
  uint8_t* buffer = pool.Acquire();
  EXPECT_NE(buffer, foreign);
  pool.Release(buffer);
}

}  // namespace
}  // namespace aiprof::cuda
