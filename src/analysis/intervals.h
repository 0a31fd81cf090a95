// Half-open time intervals [begin, end) and the set operations the overlap and step
// breakdown analyses are built on. A "merged" list is sorted by begin, its intervals
// disjoint and not touching (each begins after the previous one ends).
#pragma once

#include <cstdint>
#include <vector>

namespace aiprof::analysis {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  bool operator==(const Interval&) const = default;
};

// Sorts `intervals` (O(n log runs), analysis/run_sort.h; O(n) when already sorted) and merges
// overlapping or touching ones in place, dropping empty ones; the result is a merged list.
void MergeInPlace(std::vector<Interval>& intervals);

// Total length of a merged list.
int64_t TotalLength(const std::vector<Interval>& merged);

// Length of `merged` ∩ [begin, end).
int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end);

}  // namespace aiprof::analysis
