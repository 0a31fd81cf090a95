#include "export/sqlite/row_split.h"

#include <algorithm>

namespace aiprof::exporter {

RowRange RowSplit::NextBatch() {
  std::lock_guard lock(mutex_);
  RowRange range{taken_, std::min(limit_, taken_ + batch_)};
  taken_ = std::max(taken_, range.end);
  return range;
}

RowRange RowSplit::TakeBack(size_t rows, size_t min_rows) {
  std::lock_guard lock(mutex_);
  const size_t begin = std::max(taken_, limit_ - std::min(rows, limit_));
  if (shared_ || limit_ - begin < min_rows) return {};
  shared_ = true;
  RowRange range{begin, limit_};
  limit_ = begin;
  return range;
}

}  // namespace aiprof::exporter
