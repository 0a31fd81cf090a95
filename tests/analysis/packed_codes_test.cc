// PackedCodes (analysis/packed_codes.h): 2-bit codes per row read back as written, each row's
// code independent of its neighbours' in the same word and across word boundaries.
#include "analysis/packed_codes.h"

#include <gtest/gtest.h>

#include <random>

namespace aiprof::analysis {
namespace {

TEST(PackedCodesTest, StartsAtZero) {
  const PackedCodes codes(100);
  EXPECT_EQ(codes.size(), 100u);
  for (size_t row = 0; row < codes.size(); ++row) EXPECT_EQ(codes.Get(row), 0) << row;
}

TEST(PackedCodesTest, ReadsBackWhatWasWrittenInAnyOrder) {
  constexpr size_t kRows = 1000;  // 31.25 words: a partial last word
  PackedCodes codes(kRows);
  std::vector<uint8_t> expected(kRows, 0);
  std::mt19937 random(7);
  for (int i = 0; i < 20000; ++i) {
    const size_t row = random() % kRows;
    const uint8_t code = static_cast<uint8_t>(random() % 4);
    codes.Set(row, code);
    expected[row] = code;
  }
  for (size_t row = 0; row < kRows; ++row) EXPECT_EQ(codes.Get(row), expected[row]) << row;
}

TEST(PackedCodesTest, OverwritingKeepsTheNeighbours) {
  PackedCodes codes(64);
  for (size_t row = 0; row < 64; ++row) codes.Set(row, 3);
  codes.Set(31, 1);  // the last code of the first word
  codes.Set(32, 2);  // the first of the second
  EXPECT_EQ(codes.Get(30), 3);
  EXPECT_EQ(codes.Get(31), 1);
  EXPECT_EQ(codes.Get(32), 2);
  EXPECT_EQ(codes.Get(33), 3);
  codes.Set(31, 0);
  EXPECT_EQ(codes.Get(31), 0);
  EXPECT_EQ(codes.Get(30), 3);
  EXPECT_LE(codes.MemoryBytes(), 2 * sizeof(uint64_t));
}

}  // namespace
}  // namespace aiprof::analysis
