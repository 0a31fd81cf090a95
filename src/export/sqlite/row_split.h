// Shares the rows [0, count) of one table between two database writers on two threads:
// the table's own writer takes them from the front in batches, and a helper takes, once,
// rows at the back that the writer has not reached yet, writes them into a side database,
// and the writer appends them after its own rows (Database::MergeFrom). Rows stay in index order:
// the writer's share is a prefix, the helper's the rest.
#pragma once

#include <cstddef>
#include <mutex>

namespace aiprof::exporter {

struct RowRange {
  size_t begin = 0;
  size_t end = 0;
  bool empty() const { return begin >= end; }
  size_t size() const { return empty() ? 0 : end - begin; }
};

class RowSplit {
 public:
  explicit RowSplit(size_t count, size_t batch = 4096) : limit_(count), batch_(batch) {}

  // The writer's next rows; empty once it has reached the helper's share or the end.
  RowRange NextBatch();
  // The helper's share, taken once: the last `rows` rows, or those the writer has not
  // taken when that is fewer; nothing when under `min_rows` (not worth a side database).
  RowRange TakeBack(size_t rows, size_t min_rows);

 private:
  std::mutex mutex_;
  size_t taken_ = 0;  // the writer's rows so far: [0, taken_)
  size_t limit_;      // where the helper's share begins (the count until it takes one)
  size_t batch_;
  bool shared_ = false;
};

}  // namespace aiprof::exporter
