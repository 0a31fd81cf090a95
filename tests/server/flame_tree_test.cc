// The flame graph's flat tree (server/flame_tree.h): values add up to the folded stacks'
// weights, a parent comes before its children, and small subtrees are dropped and counted.
#include "server/flame_tree.h"

#include <gtest/gtest.h>

namespace aiprof::server {
namespace {

// The path of names from the root to `node`, "all;a;b".
std::string Path(const FlameTree& tree, uint32_t node) {
  std::string path = tree.names[tree.name[node]];
  for (uint32_t p = tree.parent[node]; p != UINT32_MAX; p = tree.parent[p]) {
    path = tree.names[tree.name[p]] + ";" + path;
  }
  return path;
}

TEST(FlameTree, ValuesAreTheFoldedWeightsThroughEachFrame) {
  const std::map<std::string, uint64_t> folded{
      {"main;train;forward", 60}, {"main;train;backward", 30}, {"main;load", 10}, {"idle", 5}};
  const FlameTree tree = BuildFlameTree(folded, 0);
  EXPECT_EQ(tree.total(), 105u);
  EXPECT_EQ(tree.pruned_nodes, 0u);
  EXPECT_EQ(tree.pruned_value, 0u);
  ASSERT_EQ(tree.name.size(), 7u);  // all, idle, main, load, train, backward, forward
  std::map<std::string, uint64_t> by_path;
  for (uint32_t i = 0; i < tree.name.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(tree.parent[i], i) << "a parent comes first";
    }
    by_path[Path(tree, i)] = tree.value[i];
  }
  EXPECT_EQ(by_path["all"], 105u);
  EXPECT_EQ(by_path["all;main"], 100u);
  EXPECT_EQ(by_path["all;main;train"], 90u);
  EXPECT_EQ(by_path["all;main;train;forward"], 60u);
  EXPECT_EQ(by_path["all;main;load"], 10u);
  EXPECT_EQ(by_path["all;idle"], 5u);
  // Children by name: idle before main, backward before forward.
  EXPECT_EQ(Path(tree, 1), "all;idle");
  EXPECT_EQ(tree.names.size(), 7u) << "each name once";
}

TEST(FlameTree, ARecursiveFrameIsANewNodeWithTheSameName) {
  const FlameTree tree = BuildFlameTree({{"f;f;f", 3}}, 0);
  ASSERT_EQ(tree.name.size(), 4u);
  EXPECT_EQ(tree.names.size(), 2u);
  EXPECT_EQ(tree.name[1], tree.name[3]);
  EXPECT_EQ(tree.value[3], 3u);
}

// Sorted, "f;g" and "f;g" + ";h" are split by "f;g x" (' ' sorts before ';'): the frame g
// met again after a different one is still the same node.
TEST(FlameTree, AFrameMetAgainAfterAnotherIsTheSameNode) {
  const FlameTree tree = BuildFlameTree({{"f;g", 1}, {"f;g x", 2}, {"f;g;h", 4}}, 0);
  ASSERT_EQ(tree.name.size(), 5u);  // all, f, g, g x, h
  EXPECT_EQ(Path(tree, 2), "all;f;g");
  EXPECT_EQ(tree.value[2], 5u);
  EXPECT_EQ(Path(tree, 3), "all;f;g;h");
  EXPECT_EQ(Path(tree, 4), "all;f;g x");
  EXPECT_EQ(tree.value[4], 2u);
}

TEST(FlameTree, SmallSubtreesArePrunedAndCounted) {
  // 10000 samples; "rare" (4 samples, 3 nodes deep) is under 0.05% (5 samples).
  const std::map<std::string, uint64_t> folded{
      {"main;hot", 9991}, {"main;rare;a;b", 4}, {"main;edge", 5}};
  const FlameTree tree = BuildFlameTree(folded, 0.0005);
  EXPECT_EQ(tree.total(), 10000u) << "the root keeps the whole weight";
  EXPECT_EQ(tree.pruned_nodes, 3u) << "rare, a and b";
  EXPECT_EQ(tree.pruned_value, 4u);
  ASSERT_EQ(tree.name.size(), 4u);  // all, main, edge (5: at the threshold), hot
  uint64_t children = 0;
  for (uint32_t i = 0; i < tree.name.size(); ++i) {
    if (tree.parent[i] == 1) children += tree.value[i];
  }
  EXPECT_EQ(children + tree.pruned_value, tree.value[1]) << "what is left out is said";
}

TEST(FlameTree, NoStacksIsAnEmptyRoot) {
  const FlameTree tree = BuildFlameTree({}, 0.0005);
  ASSERT_EQ(tree.name.size(), 1u);
  EXPECT_EQ(tree.total(), 0u);
  EXPECT_EQ(tree.names[0], "all");
}

}  // namespace
}  // namespace aiprof::server
