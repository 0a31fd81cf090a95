// A stable sort for data that arrives as a few long ascending runs: the slices of each
// thread come in time order, but threads (and the chunks each flushed) interleave, so a
// process's slices by start time are many sorted runs, one after the other. Merging the
// runs pairwise costs O(n log runs) sequential passes instead of the O(n log n) indirect
// comparisons of std::stable_sort; input that is not made of long runs goes to that.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "model/huge_pages.h"

namespace aiprof::analysis {

// Sorts `items` by `less`, keeping equal items in their order (as std::stable_sort does).
template <typename T, typename Less>
void StableSortRuns(std::vector<T>& items, Less less) {
  // Where each ascending run starts, then the end.
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < items.size(); ++i) {
    if (less(items[i], items[i - 1])) bounds.push_back(i);
  }
  if (bounds.size() == 1) return;
  // Short runs: merging them level by level would copy the data too many times.
  constexpr size_t kShortestMeanRun = 64;
  if (bounds.size() > items.size() / kShortestMeanRun) {
    std::stable_sort(items.begin(), items.end(), less);
    return;
  }
  bounds.push_back(items.size());
  std::vector<T> buffer;
  model::ReserveOnHugePages(buffer, items.size());
  buffer.resize(items.size());
  std::vector<T>* from = &items;
  std::vector<T>* to = &buffer;
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const auto begin = from->begin() + static_cast<std::ptrdiff_t>(bounds[r]);
      const auto middle = from->begin() + static_cast<std::ptrdiff_t>(bounds[r + 1]);
      const auto end = r + 2 < bounds.size()
                           ? from->begin() + static_cast<std::ptrdiff_t>(bounds[r + 2])
                           : middle;
      const auto out = to->begin() + static_cast<std::ptrdiff_t>(bounds[r]);
      // Runs already in order (blocks of different times) are copied, not compared.
      if (middle == end || !less(*middle, *(middle - 1))) {
        std::copy(begin, end, out);
      } else {
        std::merge(begin, middle, middle, end, out, less);
      }
      merged.push_back(static_cast<size_t>(end - from->begin()));
    }
    bounds.swap(merged);
    std::swap(from, to);
  }
  if (from != &items) items.swap(buffer);
}

// Rows of a table that some test keeps, noted as the ranges of the table in which their keys
// ascend (the sorted runs, one per thread chunk) instead of as a list of rows: the rows by
// key are then read by merging the ranges (MergeRuns), with neither the list nor a sort
// buffer.
struct TableRuns {
  uint64_t count = 0;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // [first row, last row + 1)
  int64_t last_key = INT64_MIN;
  void Add(uint32_t row, int64_t key) {
    if (ranges.empty() || key < last_key) {
      ranges.emplace_back(row, row + 1);
    } else {
      ranges.back().second = row + 1;
    }
    last_key = key;
    ++count;
  }
  // Many short runs: merging them costs more than sorting the rows.
  bool ShortRuns() const { return ranges.size() > 1 && ranges.size() > count / 64; }
};

// Calls emit(row) for every row of `runs`' ranges that `kept(row)` accepts (the rows noted),
// by key(row), rows of equal keys in table order: the order a stable sort of them gives.
template <typename Kept, typename Key, typename Emit>
void MergeRuns(const TableRuns& runs, Kept kept, Key key, Emit emit) {
  const std::vector<std::pair<uint32_t, uint32_t>>& ranges = runs.ranges;
  std::vector<uint32_t> at(ranges.size());
  using Head = std::pair<int64_t, size_t>;  // (key, range): equal keys by range, in table order
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const auto advance = [&](size_t range) {  // to the range's next kept row, queued by its key
    while (at[range] < ranges[range].second && !kept(at[range])) ++at[range];
    if (at[range] < ranges[range].second) heads.emplace(key(at[range]), range);
  };
  for (size_t range = 0; range < ranges.size(); ++range) {
    at[range] = ranges[range].first;
    advance(range);
  }
  while (!heads.empty()) {
    const size_t range = heads.top().second;
    heads.pop();
    emit(at[range]++);
    advance(range);
  }
}

// The rows noted in `runs` (those `kept` accepts in its ranges), in table order.
template <typename Kept>
std::vector<uint32_t> RowsOfRuns(const TableRuns& runs, Kept kept) {
  std::vector<uint32_t> rows;
  model::ReserveOnHugePages(rows, runs.count);
  for (const auto& [first, end] : runs.ranges) {
    for (uint32_t row = first; row < end; ++row) {
      if (kept(row)) rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace aiprof::analysis
