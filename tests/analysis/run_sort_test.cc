#include "analysis/run_sort.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>

namespace aiprof::analysis {
namespace {

// (key, original position): equal keys must keep their order, as std::stable_sort keeps it.
using Item = std::pair<int, size_t>;
bool ByKey(const Item& a, const Item& b) {
  return a.first < b.first;
}

std::vector<Item> Numbered(const std::vector<int>& keys) {
  std::vector<Item> items;
  for (size_t i = 0; i < keys.size(); ++i) items.emplace_back(keys[i], i);
  return items;
}

void ExpectSameAsStableSort(const std::vector<int>& keys) {
  std::vector<Item> expected = Numbered(keys), actual = Numbered(keys);
  std::stable_sort(expected.begin(), expected.end(), ByKey);
  StableSortRuns(actual, ByKey);
  EXPECT_EQ(actual, expected);
}

// `threads` sorted sequences cut into chunks of `chunk` and interleaved chunk by chunk, as
// the slices of several threads arrive in a file; keys repeat so that ties occur.
std::vector<int> InterleavedChunks(int threads, int chunk, int chunks_per_thread) {
  std::vector<int> keys;
  for (int c = 0; c < chunks_per_thread; ++c) {
    for (int t = 0; t < threads; ++t) {
      for (int i = 0; i < chunk; ++i) keys.push_back((c * chunk + i) * 2 + (t % 2));
    }
  }
  return keys;
}

TEST(StableSortRuns, InterleavedThreadChunksWithTies) {
  ExpectSameAsStableSort(InterleavedChunks(4, 100, 7));
  ExpectSameAsStableSort(InterleavedChunks(3, 200, 5));  // an odd number of runs
}

TEST(StableSortRuns, SortedEmptyAndSingle) {
  ExpectSameAsStableSort({});
  ExpectSameAsStableSort({5});
  ExpectSameAsStableSort({1, 1, 2, 3, 3, 3, 9});
}

TEST(StableSortRuns, ShortRunsGoToTheLibrarySort) {
  std::mt19937 random(7);
  std::vector<int> keys(5000);
  for (int& key : keys) key = static_cast<int>(random() % 100);
  ExpectSameAsStableSort(keys);
}

TEST(StableSortRuns, DescendingBlocks) {
  // Blocks in descending order, each ascending: every merge is a real one.
  std::vector<int> keys;
  for (int block = 9; block >= 0; --block) {
    for (int i = 0; i < 300; ++i) keys.push_back(block * 300 + i / 3);
  }
  ExpectSameAsStableSort(keys);
}

}  // namespace
}  // namespace aiprof::analysis
