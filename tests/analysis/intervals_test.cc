#include "analysis/intervals.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace aiprof::analysis
