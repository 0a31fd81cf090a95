// BlockPool: growth on demand, the record path's own claim of never-used blocks when the
// writer is late, and the cap. block_pool.cc is compiled into this test (the runtime
// library exports only its C API).
#include "runtime/block_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace aiprof::runtime {
namespace {

constexpr size_t kCapBytes = size_t{8} << 20;
constexpr uint32_t kCapBlocks = kCapBytes / kBlockBytes;
constexpr uint32_t kInitialBlocks = kInitialReadyBytes / kBlockBytes;

TEST(BlockPool, StartsWithTheInitialPartOnly) {
  BlockPool pool;
  ASSERT_TRUE(pool.Init(kCapBytes));
  EXPECT_EQ(pool.capacity_blocks(), kCapBlocks);
  EXPECT_EQ(pool.claimed_blocks(), kInitialBlocks);
  EXPECT_EQ(pool.free_blocks(), kInitialBlocks);
  EXPECT_FALSE(pool.GrowthDue());
}

TEST(BlockPool, AnEmptyStackBelowTheCapHandsOutNeverUsedBlocksInsteadOfDropping) {
  BlockPool pool;
  ASSERT_TRUE(pool.Init(kCapBytes));
  std::set<int32_t> taken;
  // No Grow: the writer never runs. Every block up to the cap is still handed out once.
  for (uint32_t i = 0; i < kCapBlocks; ++i) {
    int32_t block = pool.Pop();
    ASSERT_NE(block, kNoBlock) << "pop " << i;
    EXPECT_TRUE(taken.insert(block).second);
    EXPECT_EQ(pool.Meta(block).committed.load(), 0u);
    EXPECT_EQ(pool.Meta(block).next.load(), kNoBlock);
    pool.Data(block)[kBlockBytes - 1] = 1;  // writable: the first write faults it in
  }
  EXPECT_EQ(pool.claimed_blocks(), kCapBlocks);
  EXPECT_EQ(pool.Pop(), kNoBlock);  // at the cap: the caller drops and counts
  EXPECT_EQ(pool.Grow(), 0u);
  pool.Push(*taken.begin());
  EXPECT_EQ(pool.Pop(), *taken.begin());
}

TEST(BlockPool, GrowFaultsInAheadAndNeverHandsOutABlockTwice) {
  BlockPool pool;
  ASSERT_TRUE(pool.Init(kCapBytes));
  std::vector<int32_t> held;
  while (!pool.GrowthDue()) held.push_back(pool.Pop());
  // A producer that found the stack empty claimed one block before the writer grew.
  for (uint32_t i = pool.free_blocks(); i > 0; --i) held.push_back(pool.Pop());
  held.push_back(pool.Pop());
  uint32_t added = pool.Grow();
  EXPECT_EQ(pool.claimed_blocks(), std::min<uint32_t>(kCapBlocks, kActiveReadyBytes / kBlockBytes));
  EXPECT_EQ(added + kInitialBlocks + 1, pool.claimed_blocks());
  EXPECT_EQ(pool.free_blocks(), added);
  std::set<int32_t> distinct(held.begin(), held.end());
  for (int32_t block = pool.Pop(); block != kNoBlock; block = pool.Pop()) {
    EXPECT_TRUE(distinct.insert(block).second) << block;
  }
  EXPECT_EQ(distinct.size(), kCapBlocks);
}

}  // namespace
}  // namespace aiprof::runtime
