#include "export/sqlite/row_split.h"

#include <algorithm>

namespace aiprof::exporter {

RowRange RowSplit::NextBatch() {
  std::lock_guard lock(mutex_);
  RowRange range{taken_, std::min(limit_, taken_ + batch_)};
  taken_ = std::max(taken_, range.end);
  return range;
}

RowRange RowSplit::TakeBackHalf(size_t min_rows) {
  std::lock_guard lock(mutex_);
  if (shared_ || limit_ - taken_ < min_rows) return {};
  shared_ = true;
  const size_t begin = taken_ + (limit_ - taken_) / 2;
  RowRange range{begin, limit_};
  limit_ = begin;
  return range;
}

}  // namespace aiprof::exporter
