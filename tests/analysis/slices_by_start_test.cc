#include "analysis/slices_by_start.h"

#include <gtest/gtest.h>

namespace aiprof::analysis {
namespace {

// Lane 0: [0,100) holding [10,20) and [30,90), which holds [40,50); [30,60) starts with
// [30,90) and is shorter, so it comes after it. Lane 1: [5,6).
model::SliceTable Slices() {
  model::SliceTable s;
  const int64_t spans[][2] = {{30, 60}, {0, 100}, {40, 50}, {10, 20}, {30, 90}, {5, 6}};
  for (const auto& span : spans) {
    s.ts.push_back(span[0]);
    s.end.push_back(span[1]);
  }
  return s;
}

TEST(SlicesByStart, LastStartedByOrdersEqualStartsLongestFirst) {
  const model::SliceTable s = Slices();
  SlicesByStart by_start(s, [](uint32_t row) { return row; });
  for (uint32_t row : {0u, 1u, 2u, 3u, 4u}) by_start.Add(0, row);
  by_start.Add(1, 5);
  by_start.Sort();
  EXPECT_EQ(by_start.LastStartedBy(0, -1), model::kNoRow);
  EXPECT_EQ(by_start.LastStartedBy(0, 0), 1u);
  EXPECT_EQ(by_start.LastStartedBy(0, 15), 3u);
  EXPECT_EQ(by_start.LastStartedBy(0, 25), 3u);  // ended: the caller walks up to [0,100)
  EXPECT_EQ(by_start.LastStartedBy(0, 30), 0u);  // the shorter of the two starting at 30
  EXPECT_EQ(by_start.LastStartedBy(0, 45), 2u);
  EXPECT_EQ(by_start.LastStartedBy(0, 1000), 2u);
  EXPECT_EQ(by_start.LastStartedBy(1, 5), 5u);
  EXPECT_EQ(by_start.LastStartedBy(2, 5), model::kNoRow);
}

TEST(SlicesByStart, ItemsMapToRows) {
  const model::SliceTable s = Slices();
  const std::vector<uint32_t> rows = {2, 1};  // item 0 is row 2, item 1 is row 1
  SlicesByStart by_start(s, [&](uint32_t item) { return rows[item]; });
  by_start.Add(7, 0);
  by_start.Add(7, 1);
  by_start.Sort();
  EXPECT_EQ(by_start.LastStartedBy(7, 39), 1u);
  EXPECT_EQ(by_start.LastStartedBy(7, 40), 0u);
}

}  // namespace
}  // namespace aiprof::analysis
