#include "export/sqlite/row_split.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace aiprof::exporter {
namespace {

// The writer's batches until the split gives none.
std::vector<RowRange> Drain(RowSplit& split) {
  std::vector<RowRange> batches;
  for (RowRange r = split.NextBatch(); !r.empty(); r = split.NextBatch()) batches.push_back(r);
  return batches;
}

TEST(RowSplitTest, WriterAloneTakesEveryRowInBatches) {
  RowSplit split(10, 4);
  const std::vector<RowRange> batches = Drain(split);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].begin, 0u);
  EXPECT_EQ(batches[0].end, 4u);
  EXPECT_EQ(batches[2].begin, 8u);
  EXPECT_EQ(batches[2].end, 10u);
  EXPECT_TRUE(split.TakeBack(10, 0).empty());  // nothing left once the writer is done
}

TEST(RowSplitTest, HelperTakesTheBackRowsTheWriterHasNotReached) {
  RowSplit split(100, 10);
  EXPECT_EQ(split.NextBatch().end, 10u);
  const RowRange back = split.TakeBack(60, 1);
  EXPECT_EQ(back.begin, 40u);
  EXPECT_EQ(back.end, 100u);
  const std::vector<RowRange> rest = Drain(split);
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.front().begin, 10u);
  EXPECT_EQ(rest.back().end, 40u);  // the last batch stops where the helper's share begins
  EXPECT_TRUE(split.TakeBack(60, 1).empty());  // taken once
}

TEST(RowSplitTest, HelperTakesAtMostWhatIsLeft) {
  RowSplit split(100, 10);
  EXPECT_EQ(split.NextBatch().end, 10u);
  EXPECT_EQ(split.NextBatch().end, 20u);
  const RowRange back = split.TakeBack(95, 1);
  EXPECT_EQ(back.begin, 20u);
  EXPECT_EQ(back.end, 100u);
  EXPECT_TRUE(split.NextBatch().empty());
}

TEST(RowSplitTest, HelperBeforeTheWriterStartsTakesItsShare) {
  RowSplit split(7, 4);
  const RowRange back = split.TakeBack(4, 1);
  EXPECT_EQ(back.begin, 3u);
  EXPECT_EQ(back.end, 7u);
  const std::vector<RowRange> front = Drain(split);
  ASSERT_EQ(front.size(), 1u);
  EXPECT_EQ(front[0].end, 3u);
}

TEST(RowSplitTest, TooFewRowsLeftAreNotShared) {
  RowSplit split(100, 10);
  EXPECT_TRUE(split.TakeBack(100, 101).empty());
  EXPECT_EQ(Drain(split).back().end, 100u);
}

// Whatever the timing, the writer's rows and the helper's cover [0, count) once, the
// writer's a prefix.
TEST(RowSplitTest, SharesAreDisjointUnderRaces) {
  for (int round = 0; round < 50; ++round) {
    RowSplit split(100000, 64);
    RowRange back;
    std::thread helper([&] { back = split.TakeBack(75000, 1); });
    size_t expected = 0;
    for (RowRange r = split.NextBatch(); !r.empty(); r = split.NextBatch()) {
      ASSERT_EQ(r.begin, expected);
      expected = r.end;
    }
    helper.join();
    EXPECT_EQ(back.empty() ? size_t{100000} : back.begin, expected);
    if (!back.empty()) {
      EXPECT_EQ(back.end, 100000u);
    }
  }
}

}  // namespace
}  // namespace aiprof::exporter
