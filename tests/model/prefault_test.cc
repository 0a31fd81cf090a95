#include "model/prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace aiprof::model {
namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;
#endif
constexpr uintptr_t kHugePage = 2 << 20;

// Pages of [begin, end) in memory, by mincore, and how many pages that is.
std::pair<size_t, size_t> ResidentPages(uintptr_t begin, uintptr_t end) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  begin &= ~(page - 1);
  end = (end + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return {0, 0};
  size_t resident = 0;
  for (unsigned char p : in) resident += p & 1;
  return {resident, in.size()};
}

bool KernelPopulates() {
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const bool ok = madvise(page, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(page, 4096);
  return ok;
}

// Rows advanced before Start are faulted in by the helper's first pass (without the test
// touching them); after Stop, whole 2 MiB ranges past the rows the column ends with are
// given back, and the column's values are as the filler wrote them.
TEST(Prefaulter, FaultsInAdvancedRowsAndGivesBackWhatLiesBeyond) {
  if (!KernelPopulates()) GTEST_SKIP() << "no MADV_POPULATE_WRITE (Linux < 5.14)";
  std::vector<uint64_t> column;
  column.reserve(size_t{8} << 20);  // 64 MiB of capacity
  const uintptr_t data = reinterpret_cast<uintptr_t>(column.data());
  constexpr size_t kRows = size_t{1} << 20;  // 8 MiB of rows
  {
    Prefaulter prefault(/*window_rows=*/size_t{1} << 20);
    prefault.Add(column, 0);
    prefault.Advance(0, kRows);
    prefault.Start();
    prefault.Stop();
    // The first page may be shared with another allocation: from the second one on.
    const auto [resident, pages] = ResidentPages(data + 4096, data + kRows * 8);
    EXPECT_EQ(resident, pages);
  }
  const uintptr_t beyond = (data + kRows * 8 + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (data + column.capacity() * 8) & ~uintptr_t{4095};
  EXPECT_EQ(ResidentPages(beyond, end).first, 0u);
  for (size_t i = 0; i < kRows; ++i) column.push_back(i * 3);
  for (size_t i = 0; i < kRows; i += 4099) ASSERT_EQ(column[i], i * 3);
}

// The filler writing while the helper faults in ahead: every value stays as written, also
// in a column that outgrows its capacity and moves (its old storage is left alone).
TEST(Prefaulter, ValuesStayAsWrittenWhileTheHelperRuns) {
  std::vector<uint32_t> steady, moving;
  steady.reserve(size_t{2} << 20);
  moving.reserve(size_t{1} << 16);
  Prefaulter prefault(/*window_rows=*/size_t{1} << 16);
  prefault.Add(steady, 0);
  prefault.Add(moving, 1);
  prefault.Start();
  for (uint32_t i = 0; i < (uint32_t{2} << 20); ++i) {
    steady.push_back(i ^ 0x5a5a5a5a);
    moving.push_back(i);
    if (i % 4096 == 0) {
      prefault.Advance(0, steady.size());
      prefault.Advance(1, moving.size());
    }
  }
  prefault.Advance(0, steady.size());
  prefault.Advance(1, moving.size());
  prefault.Stop();
  for (uint32_t i = 0; i < steady.size(); ++i) {
    ASSERT_EQ(steady[i], i ^ 0x5a5a5a5a);
    ASSERT_EQ(moving[i], i);
  }
}

// Nothing to fault in: no thread, and Stop (or the destructor) does nothing.
TEST(Prefaulter, WithoutColumnsDoesNothing) {
  std::vector<int64_t> empty;
  Prefaulter prefault;
  prefault.Add(empty, 0);  // no capacity: not added
  prefault.Start();
  prefault.Advance(0, 10);
  prefault.Stop();
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace aiprof::model
