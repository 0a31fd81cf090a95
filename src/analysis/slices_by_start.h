// Slices grouped by lane (a track, a thread) and ordered by start, among equal starts the
// longest first so that a slice comes before the slices it holds: the index that finds the
// innermost slice around a moment (memory.cc: where an allocation happens;
// memory_attribution.cc: the operator that allocated). An item is what the caller walks up
// from (a slice row, an operator index); `row_of` gives its slice row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

template <typename RowOf>
class SlicesByStart {
 public:
  SlicesByStart(const model::SliceTable& slices, RowOf row_of) : slices_(slices), row_of_(row_of) {}

  void Add(uint32_t lane, uint32_t item) { lanes_[lane].push_back(item); }

  // Once, after the last Add.
  void Sort() {
    for (auto& [lane, items] : lanes_) {
      std::sort(items.begin(), items.end(), [&](uint32_t a, uint32_t b) {
        const uint32_t ra = row_of_(a), rb = row_of_(b);
        return slices_.ts[ra] != slices_.ts[rb] ? slices_.ts[ra] < slices_.ts[rb]
                                                : slices_.end[ra] > slices_.end[rb];
      });
    }
  }

  // The item of `lane` that started last at or before `ts` (model::kNoRow: none). The
  // innermost item holding `ts` is this one or encloses it: it started after every other
  // item holding `ts`, so the last to start is it or lies inside it. Callers walk up their
  // parent chain to the first item still running at `ts`.
  uint32_t LastStartedBy(uint32_t lane, int64_t ts) const {
    const auto found = lanes_.find(lane);
    if (found == lanes_.end()) return model::kNoRow;
    const std::vector<uint32_t>& items = found->second;
    const auto after = std::upper_bound(items.begin(), items.end(), ts, [&](int64_t t, uint32_t i) {
      return t < slices_.ts[row_of_(i)];
    });
    return after == items.begin() ? model::kNoRow : *(after - 1);
  }

 private:
  const model::SliceTable& slices_;
  RowOf row_of_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> lanes_;
};

}  // namespace aiprof::analysis
