#include "model/zero_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace aiprof::model {
namespace {

// Pages of [data, data + bytes) in memory, by mincore.
size_t ResidentPages(const void* data, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return SIZE_MAX;
  size_t resident = 0;
  for (unsigned char p : in) resident += p & 1;
  return resident;
}

// Slices whose args column is all zeros (no event has arguments) and whose names are not:
// the args' whole 2 MiB ranges go back, the names stay, and every value reads as before.
TEST(ZeroPages, AllZeroRangesOfColumnsGoBackAndStillReadAsZero) {
  Model model;
  constexpr size_t kRows = 3 << 20;  // 12 MiB of uint32: at least five whole 2 MiB ranges
  model.slices.args.assign(kRows, 0);
  model.slices.name.assign(kRows, 7);
  model.slices.depth.assign(kRows, 0);
  model.slices.depth[kRows / 2] = 1;  // one value: its range stays, the others go
  const size_t args_before = ResidentPages(model.slices.args.data(), kRows * 4);
  const size_t names_before = ResidentPages(model.slices.name.data(), kRows * 4);

  const size_t released = ReleaseZeroPages(model);

  EXPECT_GE(released, size_t{5} * (2 << 20) + size_t{1} * (2 << 20));
  EXPECT_LT(ResidentPages(model.slices.args.data(), kRows * 4), args_before);
  EXPECT_EQ(ResidentPages(model.slices.name.data(), kRows * 4), names_before);
  for (size_t i = 0; i < kRows; i += 997) ASSERT_EQ(model.slices.args[i], 0u);
  EXPECT_EQ(model.slices.depth[kRows / 2], 1);
  EXPECT_EQ(model.slices.depth[kRows / 2 - 1], 0);
  EXPECT_EQ(model.slices.name[kRows - 1], 7u);
  model.slices.args[kRows - 1] = 5;  // written later: an ordinary page again
  EXPECT_EQ(model.slices.args[kRows - 1], 5u);
}

}  // namespace
}  // namespace aiprof::model
