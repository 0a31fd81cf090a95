// Half-open time intervals [begin, end) and the set operations the overlap and step
// breakdown analyses are built on. A "merged" list is sorted by begin, its intervals
// disjoint and not touching (each begins after the previous one ends).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace aiprof::analysis {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  bool operator==(const Interval&) const = default;
};

// Adds `next` to a merged list, given intervals in order of begin: the list MergeInPlace
// makes of them, built without holding the input.
void AppendMerged(std::vector<Interval>& merged, const Interval& next);

// The list AppendMerged makes, when its size is not known in advance: built in chunks of
// 1 MiB and gathered at the end into one vector of its size, each chunk freed once copied, so
// that it never holds the list twice (a vector reserved at the input's size and shrunk at the
// end would: shrink_to_fit copies).
class MergedListBuilder {
 public:
  void Append(const Interval& next);
  std::vector<Interval> Take();

 private:
  static constexpr size_t kChunk = (size_t{1} << 20) / sizeof(Interval);
  std::vector<std::vector<Interval>> chunks_;
};

// The merged list of `interval_of(item)` over `items` (which it may reorder): overlapping or
// touching intervals merged, empty ones dropped. Items come in table order, sorted runs (one
// per thread chunk): the runs' heads are merged through a heap straight into the union, so
// that besides `items` it holds only the union (often far less than the input), at its size
// (MergedListBuilder);
// many short runs are sorted in place instead. O(n log runs).
template <typename T, typename IntervalOf>
std::vector<Interval> UnionOf(std::vector<T>& items, IntervalOf interval_of) {
  std::vector<size_t> bounds{0};  // where each ascending run starts, then the end
  for (size_t i = 1; i < items.size(); ++i) {
    if (interval_of(items[i]).begin < interval_of(items[i - 1]).begin) bounds.push_back(i);
  }
  bounds.push_back(items.size());
  const size_t runs = bounds.size() - 1;
  constexpr size_t kShortestMeanRun = 64;
  if (runs > 1 && runs > items.size() / kShortestMeanRun) {
    // The order of equal begins does not change a union: no stable sort, no buffer.
    std::sort(items.begin(), items.end(),
              [&](const T& a, const T& b) { return interval_of(a).begin < interval_of(b).begin; });
    bounds = {0, items.size()};
  }
  MergedListBuilder merged;
  if (bounds.size() == 2) {
    for (const T& item : items) merged.Append(interval_of(item));
  } else {
    using Head = std::pair<int64_t, size_t>;  // (begin, run)
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<size_t> at(bounds.begin(), bounds.end() - 1);
    for (size_t run = 0; run + 1 < bounds.size(); ++run) {
      heads.emplace(interval_of(items[at[run]]).begin, run);
    }
    while (!heads.empty()) {
      const size_t run = heads.top().second;
      heads.pop();
      merged.Append(interval_of(items[at[run]]));
      if (++at[run] < bounds[run + 1]) heads.emplace(interval_of(items[at[run]]).begin, run);
    }
  }
  return merged.Take();
}

// The same in place: `intervals` becomes their merged list, held at its size.
void MergeInPlace(std::vector<Interval>& intervals);

// Total length of a merged list.
int64_t TotalLength(const std::vector<Interval>& merged);

// Length of `merged` ∩ [begin, end).
int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end);

}  // namespace aiprof::analysis
