// Large columns and scratch vectors ask for transparent huge pages: filling tens of MB one
// 4 KiB page fault at a time was the largest single cost of parsing, and a large one of the
// analyses, on this project's VMs (one fault per 2 MiB instead). A no-op where THP is off.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aiprof::model {

// Advises the whole 2 MiB pages inside [data, data + bytes).
inline void AdviseHugePages(const void* data, size_t bytes) {
  constexpr uintptr_t kHugePage = 2 << 20;
  const uintptr_t first = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (first + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// reserve(count), on huge pages where the allocation is large enough.
template <typename T>
void ReserveOnHugePages(std::vector<T>& column, size_t count) {
  column.reserve(count);
  AdviseHugePages(column.data(), count * sizeof(T));
}

// assign(count, value), on huge pages where the allocation is large enough.
template <typename T>
void AssignOnHugePages(std::vector<T>& column, size_t count, const T& value) {
  ReserveOnHugePages(column, count);
  column.assign(count, value);
}

}  // namespace aiprof::model
