// Half-open time intervals [begin, end) and their union, the building block of the busy/idle
// splits (HTA's merge_kernel_intervals: sort by start, start a new group when an interval
// begins after every earlier one has ended).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace aiprof::analysis {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  friend bool operator==(const Interval&, const Interval&) = default;
};

// Sorts `intervals` and merges the overlapping and touching ones; empty ones are dropped.
inline std::vector<Interval> MergeIntervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  for (const Interval& interval : intervals) {
    if (interval.end <= interval.begin) continue;
    if (!merged.empty() && interval.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, interval.end);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

inline int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& interval : merged) total += interval.end - interval.begin;
  return total;
}

// Length of the part of the merged (sorted, disjoint) intervals inside [begin, end).
inline int64_t CoveredWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  auto it = std::upper_bound(merged.begin(), merged.end(), begin,
                             [](int64_t t, const Interval& i) { return t < i.end; });
  int64_t covered = 0;
  for (; it != merged.end() && it->begin < end; ++it) {
    covered += std::min(end, it->end) - std::max(begin, it->begin);
  }
  return covered;
}

}  // namespace aiprof::analysis
