// Faults in the pages of growing columns on a helper thread, a little ahead of the thread
// that fills them. On this project's VMs the kernel's zeroing of a freshly touched page was
// over half of parsing a one-file marker run (perf: clear_page_erms), all of it on the
// parsing thread; with the pages faulted in beside it, that parse went from 0.30–0.64 s to
// 0.25 s (docs/PERFORMANCE.md). Faulting in (MADV_POPULATE_WRITE, Linux 5.14) leaves the
// contents as they are, so the helper never races the filler's values; on an older kernel
// it does nothing. Pages faulted in beyond the rows the columns end with are given back.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace aiprof::model {

class Prefaulter {
 public:
  // Columns are grouped by the table whose rows they hold (slices, markers...): every
  // column of a group has that group's row count.
  static constexpr size_t kGroups = 4;

  // `window_rows`: how far ahead of a group's rows its columns are faulted in.
  explicit Prefaulter(size_t window_rows = size_t{1} << 18) : window_rows_(window_rows) {}
  ~Prefaulter() { Stop(); }
  Prefaulter(const Prefaulter&) = delete;
  Prefaulter& operator=(const Prefaulter&) = delete;

  // The reserved storage of `column` (reserve first), whose rows are counted in `group`;
  // the column outlives Stop. Before Start. Should the column outgrow its capacity and
  // move, the helper may fault in pages of its old storage, which changes nothing there,
  // and Stop leaves them alone.
  template <typename T>
  void Add(std::vector<T>& column, size_t group) {
    if (column.capacity() > 0 && group < kGroups) {
      columns_.push_back(
          {reinterpret_cast<uintptr_t>(column.data()), sizeof(T), column.capacity() * sizeof(T),
           group, &column, [](const void* v) -> Storage {
             const auto* vector = static_cast<const std::vector<T>*>(v);
             return {reinterpret_cast<uintptr_t>(vector->data()), vector->size() * sizeof(T)};
           }});
    }
  }
  // Starts the helper (no thread when no column was added).
  void Start();
  // The filler's rows so far in `group` (any thread may call, usually the filler).
  void Advance(size_t group, size_t rows);
  // On the filler's thread: waits for the helper, then gives back what it faulted in past
  // each column's end or its group's last Advance, whichever is further (from the next
  // 2 MiB boundary on: no huge page in use is split).
  void Stop();

 private:
  struct Storage {
    uintptr_t data;
    size_t used_bytes;
  };
  struct Column {
    uintptr_t data;
    size_t row_bytes;
    size_t capacity_bytes;
    size_t group;
    const void* vector;
    Storage (*storage)(const void* vector);  // where the column is now, on the filler's thread
    uintptr_t faulted_end = 0;               // faulted in up to here; the helper's until Stop
  };
  void Run();
  size_t window_rows_;
  std::vector<Column> columns_;
  std::array<std::atomic<size_t>, kGroups> rows_{};
  std::atomic<uint64_t> generation_{
      0};  // bumped on each Advance and on Stop: the helper waits on it
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace aiprof::model
