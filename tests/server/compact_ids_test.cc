#include "server/compact_ids.h"

#include <gtest/gtest.h>

#include <random>

namespace aiprof::server {
namespace {

std::vector<uint32_t> Decoded(const CompactIds& ids) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < ids.size(); ++i) out.push_back(ids[i]);
  return out;
}

CompactIds Encoded(const std::vector<uint32_t>& values) {
  CompactIds ids;
  for (uint32_t v : values) ids.push_back(v);
  ids.Finish();
  return ids;
}

TEST(CompactIds, IdsOnALineTakeNoBytePerId) {
  std::vector<uint32_t> values;
  for (uint32_t i = 0; i < 10 * CompactIds::kBlock + 7; ++i) values.push_back(5 + 3 * i);
  const CompactIds ids = Encoded(values);
  EXPECT_EQ(Decoded(ids), values);
  EXPECT_LT(ids.MemoryBytes(), 16 * 12u);  // the 11 blocks' lines only
}

TEST(CompactIds, EveryWidthRoundTrips) {
  std::mt19937 random(7);
  for (uint32_t spread : {3u, 200u, 60'000u, 4'000'000'000u}) {
    std::vector<uint32_t> values;
    uint32_t at = 1000;
    for (uint32_t i = 0; i < 3 * CompactIds::kBlock + 1; ++i) {
      at += 2;
      values.push_back(spread > 100'000 ? static_cast<uint32_t>(random())
                                        : at + static_cast<uint32_t>(random() % spread));
    }
    EXPECT_EQ(Decoded(Encoded(values)), values) << "spread " << spread;
  }
}

TEST(CompactIds, ExtremesAndDescendingIds) {
  const std::vector<uint32_t> values{UINT32_MAX, 0, UINT32_MAX, 1, 0x80000000u, 7};
  EXPECT_EQ(Decoded(Encoded(values)), values);
  std::vector<uint32_t> down;
  for (uint32_t i = 0; i < 600; ++i) down.push_back(1'000'000 - 5 * i);
  EXPECT_EQ(Decoded(Encoded(down)), down);
}

TEST(CompactIds, ReadableBeforeFinishAndReleased) {
  CompactIds ids;
  for (uint32_t i = 0; i < 300; ++i) ids.push_back(i * i);
  EXPECT_EQ(ids[299], 299u * 299u);
  EXPECT_EQ(ids[10], 100u);
  const std::vector<uint32_t> released = ids.Release();
  ASSERT_EQ(released.size(), 300u);
  EXPECT_EQ(released[17], 289u);
  EXPECT_TRUE(ids.empty());
}

}  // namespace
}  // namespace aiprof::server
