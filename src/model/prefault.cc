#include "model/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace aiprof::model {
namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack it
#endif

constexpr uintptr_t kHugePage = 2 << 20;

uintptr_t PageSize() {
  static const uintptr_t size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

void Prefaulter::Start() {
  if (columns_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void Prefaulter::Advance(size_t group, size_t rows) {
  if (group >= kGroups) return;
  rows_[group].store(rows, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_one();
}

void Prefaulter::Run() {
  const uintptr_t page = PageSize();
  uint64_t seen = generation_.load(std::memory_order_acquire);
  // The first pass runs even when Stop came at once: it faults in what was advanced
  // before Start.
  do {
    // A step is `window_rows_` rows or more, not a page: a system call per page would cost
    // more than the fault it saves.
    for (Column& column : columns_) {
      const size_t rows = rows_[column.group].load(std::memory_order_relaxed) + window_rows_;
      const size_t target =
          std::min(rows, column.capacity_bytes / column.row_bytes) * column.row_bytes;
      // Whole pages inside the column's storage: its first page may be shared with
      // another allocation, and the filler faults that one in itself.
      const uintptr_t begin = std::max(column.faulted_end, (column.data + page - 1) & ~(page - 1));
      const uintptr_t end = (column.data + target) & ~(page - 1);
      if (end <= begin) continue;
      if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) != 0) {
        return;  // an older kernel, or no memory to spare: the filler faults its own pages
      }
      column.faulted_end = end;
    }
    if (stop_.load(std::memory_order_acquire)) return;
    generation_.wait(seen, std::memory_order_acquire);
    seen = generation_.load(std::memory_order_acquire);
  } while (!stop_.load(std::memory_order_acquire));
}

void Prefaulter::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_one();
  thread_.join();
  for (const Column& column : columns_) {
    const Storage now = column.storage(column.vector);
    if (now.data != column.data) continue;  // moved: the old storage is not the column's
    const size_t advanced = rows_[column.group].load(std::memory_order_relaxed) * column.row_bytes;
    const size_t kept = std::max(now.used_bytes, advanced);
    const uintptr_t begin = (column.data + kept + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t end = std::min((column.faulted_end + kHugePage - 1) & ~(kHugePage - 1),
                                   (column.data + column.capacity_bytes) & ~(PageSize() - 1));
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
  }
}

}  // namespace aiprof::model
