// A stable sort for data that arrives as a few long ascending runs: the slices of each
// thread come in time order, but threads (and the chunks each flushed) interleave, so a
// process's slices by start time are many sorted runs, one after the other. Merging the
// runs pairwise costs O(n log runs) sequential passes instead of the O(n log n) indirect
// comparisons of std::stable_sort; input that is not made of long runs goes to that.
#pragma once

#include <algorithm>
#include <cstddef>
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

}  // namespace aiprof::analysis
