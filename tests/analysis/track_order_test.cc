// TrackOrder (analysis/critical_path/track_order.h): each track's slices by start, the longer
// first, whatever the table's row order; tracks in consecutive ascending rows held as
// stretches, scattered or unordered ones listed.
#include "analysis/critical_path/track_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace aiprof::analysis {
namespace {

void Add(model::SliceTable& s, uint32_t track, int64_t ts, int64_t end) {
  s.ts.push_back(ts);
  s.end.push_back(end);
  s.track.push_back(track);
}

// The order by a sort of each track's rows: what TrackOrder must give.
std::vector<uint32_t> Sorted(const model::SliceTable& s, uint32_t track) {
  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (s.track[row] == track) rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    if (s.end[a] != s.end[b]) return s.end[a] > s.end[b];
    return a < b;
  });
  return rows;
}

void ExpectWindows(const TrackOrder& order, const model::SliceTable& s, uint32_t track) {
  const std::vector<uint32_t> sorted = Sorted(s, track);
  EXPECT_EQ(order.Rows(track), sorted);
  for (int64_t begin = -5; begin < 120; begin += 7) {
    for (int64_t end = begin; end < 130; end += 11) {
      const auto [from, to] = order.Positions(track, begin, end);
      std::vector<uint32_t> got;
      order.Append(track, from, to, &got);
      std::vector<uint32_t> expected;
      for (uint32_t row : sorted) {
        if (s.ts[row] >= begin && s.ts[row] < end) expected.push_back(row);
      }
      EXPECT_EQ(got, expected) << begin << " " << end;
      const uint32_t before = from == 0 ? model::kNoRow : order.At(track, from - 1);
      uint32_t last_before = model::kNoRow;
      for (uint32_t row : sorted) {
        if (s.ts[row] < begin) last_before = row;
      }
      EXPECT_EQ(before, last_before);
    }
  }
}

TEST(TrackOrderTest, ChunksInOrderAreStretchesAndTheRestIsListed) {
  model::SliceTable s;
  // Track 0 in two chunks of ascending rows (a thread flushed twice), track 1 between them.
  for (int i = 0; i < 20; ++i) Add(s, 0, i * 2, i * 2 + 1);
  for (int i = 0; i < 20; ++i) Add(s, 1, i * 3, i * 3 + 5);
  for (int i = 20; i < 40; ++i) Add(s, 0, i * 2, i * 2 + 1);
  // Track 2: rows out of order, with equal starts (the longer first).
  std::mt19937 random(7);
  for (int i = 0; i < 30; ++i) {
    const int64_t ts = static_cast<int64_t>(random() % 100);
    Add(s, 2, ts, ts + static_cast<int64_t>(random() % 10));
  }
  // Track 3: interleaved row by row with track 4 (stretches of one row: listed).
  for (int i = 0; i < 20; ++i) {
    Add(s, 3, i * 5, i * 5 + 2);
    Add(s, 4, i * 5 + 1, i * 5 + 3);
  }
  const TrackOrder order(s, 6);
  for (uint32_t track = 0; track < 6; ++track) ExpectWindows(order, s, track);
  EXPECT_EQ(order.stretches(), 3u + 1 + 1 + 1);  // tracks 0 (2), 1, and one per listed track
  EXPECT_EQ(order.listed_rows(), 30u + 20 + 20);
}

}  // namespace
}  // namespace aiprof::analysis
