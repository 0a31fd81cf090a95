#include "analysis/intervals.h"

#include <gtest/gtest.h>

#include <random>

namespace aiprof::analysis {
namespace {

TEST(Intervals, MergesNestedPartialTouchingAndKeepsDisjoint) {
  std::vector<Interval> v{{50, 60}, {0, 10}, {2, 4}, {8, 15}, {15, 20}, {30, 40}, {35, 35}};
  MergeInPlace(v);
  EXPECT_EQ(v, (std::vector<Interval>{{0, 20}, {30, 40}, {50, 60}}));
  EXPECT_EQ(TotalLength(v), 40);
}

TEST(Intervals, LengthWithinClipsAtBothEnds) {
  std::vector<Interval> v{{0, 20}, {30, 40}, {50, 60}};
  EXPECT_EQ(LengthWithin(v, 10, 55), 10 + 10 + 5);
  EXPECT_EQ(LengthWithin(v, 20, 30), 0);
  EXPECT_EQ(LengthWithin(v, -5, 100), 40);
  EXPECT_EQ(LengthWithin(v, 61, 100), 0);
}

TEST(Intervals, EmptyInput) {
  std::vector<Interval> v;
  MergeInPlace(v);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(LengthWithin(v, 0, 10), 0);
}

// The union by brute force: each unit of time covered or not, then the covered stretches.
std::vector<Interval> ReferenceUnion(const std::vector<Interval>& intervals, int64_t horizon) {
  std::vector<bool> covered(static_cast<size_t>(horizon), false);
  for (const Interval& i : intervals) {
    for (int64_t t = i.begin; t < i.end; ++t) covered[static_cast<size_t>(t)] = true;
  }
  std::vector<Interval> out;
  for (int64_t t = 0; t < horizon; ++t) {
    if (!covered[static_cast<size_t>(t)]) continue;
    if (!out.empty() && out.back().end == t) {
      out.back().end = t + 1;
    } else {
      out.push_back({t, t + 1});
    }
  }
  return out;
}

// Sorted runs as threads' chunks give them (long runs: merged through the heap), and many
// short ones (sorted in place): both give the union, held at its size.
TEST(Intervals, UnionOfRunsIsTheUnionHeldAtItsSize) {
  std::mt19937 random(7);
  for (size_t run_length : {size_t{1}, size_t{3}, size_t{200}, size_t{5000}}) {
    std::vector<Interval> intervals;
    const int64_t horizon = 400000;
    while (intervals.size() < 10000) {
      int64_t at = static_cast<int64_t>(random() % (horizon / 2));
      for (size_t k = 0; k < run_length && at < horizon - 50; ++k) {
        const int64_t length = static_cast<int64_t>(random() % 40);  // 0: empty, dropped
        intervals.push_back({at, at + length});
        at += static_cast<int64_t>(random() % 120);
      }
    }
    const std::vector<Interval> expected = ReferenceUnion(intervals, horizon);
    std::vector<uint32_t> rows(intervals.size());
    for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
    const std::vector<Interval> of_rows =
        UnionOf(rows, [&](uint32_t row) { return intervals[row]; });
    ASSERT_GT(expected.size(), 100u);  // a union with gaps, not one interval
    EXPECT_EQ(of_rows, expected) << "runs of " << run_length;
    EXPECT_LE(of_rows.capacity(), of_rows.size() + of_rows.size() / 8);
    std::vector<Interval> in_place = intervals;
    MergeInPlace(in_place);
    EXPECT_EQ(in_place, expected) << "runs of " << run_length;
    EXPECT_LE(in_place.capacity(), in_place.size() + in_place.size() / 8);
  }
}

TEST(Intervals, AppendMergedBuildsTheUnionOfSortedIntervals) {
  std::vector<Interval> merged;
  for (Interval i : std::vector<Interval>{{0, 10}, {2, 4}, {8, 15}, {15, 20}, {25, 25}, {30, 40}}) {
    AppendMerged(merged, i);
  }
  EXPECT_EQ(merged, (std::vector<Interval>{{0, 20}, {30, 40}}));
}

}  // namespace
}  // namespace aiprof::analysis
