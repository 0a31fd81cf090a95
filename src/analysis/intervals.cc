#include "analysis/intervals.h"

#include <algorithm>

#include "analysis/run_sort.h"

namespace aiprof::analysis {

void MergeInPlace(std::vector<Interval>& intervals) {
  // Intervals come from slices in table order: sorted runs, one per thread chunk.
  StableSortRuns(intervals, [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  size_t out = 0;
  for (const Interval& next : intervals) {
    if (next.end <= next.begin) continue;
    if (out > 0 && next.begin <= intervals[out - 1].end) {
      intervals[out - 1].end = std::max(intervals[out - 1].end, next.end);
    } else {
      intervals[out++] = next;
    }
  }
  intervals.resize(out);
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& i : merged) total += i.length();
  return total;
}

int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  auto first = std::upper_bound(merged.begin(), merged.end(), begin,
                                [](int64_t t, const Interval& i) { return t < i.end; });
  int64_t total = 0;
  for (auto it = first; it != merged.end() && it->begin < end; ++it) {
    total += std::min(it->end, end) - std::max(it->begin, begin);
  }
  return total;
}

}  // namespace aiprof::analysis
