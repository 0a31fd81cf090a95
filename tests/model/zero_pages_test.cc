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

// While a column fills: each call gives back the whole all-zero ranges the rows so far cover
// that no earlier call looked at; a range with a value stays; a column that moved (grew past
// its capacity) is looked at again from its start; every value reads as before.
TEST(ZeroPages, ReleaserGivesBackFilledRangesOnceAsTheRowsCome) {
  Model model;
  constexpr size_t kRange = 2 << 20;
  constexpr size_t kRows = 3 << 20;  // 12 MiB of uint32
  model.slices.args.reserve(kRows);
  model.slices.args.resize(kRows / 3, 0);  // 4 MiB: one or two whole ranges
  model.slices.name.reserve(kRows);
  model.slices.name.resize(kRows / 3, 7);
  ZeroPageReleaser releaser;
  const size_t first = releaser.ReleaseFilled(model);
  EXPECT_GE(first, kRange);
  EXPECT_EQ(releaser.ReleaseFilled(model), 0u);  // nothing new covered: nothing looked at
  model.slices.args.resize(kRows, 0);
  model.slices.args[kRows - 1] = 9;  // the last range has a value: it stays
  const size_t second = releaser.ReleaseFilled(model);
  EXPECT_GE(second, size_t{2} * kRange);
  EXPECT_EQ(model.slices.args[kRows - 1], 9u);
  for (size_t i = 0; i + 1 < kRows; i += 997) ASSERT_EQ(model.slices.args[i], 0u);
  EXPECT_EQ(model.slices.name[kRows / 3 - 1], 7u);
  // Moved: looked at from its start again (its new storage is all resident).
  model.slices.args[kRows - 1] = 0;
  const uint32_t* before = model.slices.args.data();
  model.slices.args.push_back(0);  // past the capacity: copied to new storage
  ASSERT_NE(model.slices.args.data(), before);
  EXPECT_GE(releaser.ReleaseFilled(model), size_t{4} * kRange);
  EXPECT_EQ(model.slices.args[kRows - 1], 0u);
}

}  // namespace
}  // namespace aiprof::model
