// A flame graph's call tree from folded stacks ("root;...;leaf" → weight), flat so the UI
// gets it compactly: nodes in depth-first order (a parent before its children, children by
// name), each a name index, its parent and its inclusive value. Nodes below a share of the
// total are dropped with their subtrees, so that the answer's size follows that share (at
// most 1 / share frames per depth), not the samples; how many nodes (and how much weight)
// were dropped is kept to be said.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aiprof::server {

struct FlameTree {
  std::vector<std::string> names;  // distinct function names; names[0] is the root's ("all")
  std::vector<uint32_t> name;      // per node: index into names
  std::vector<uint32_t> parent;    // per node: parent node (UINT32_MAX for the root, node 0)
  std::vector<uint64_t> value;     // per node: the weight of every stack through it
  uint64_t pruned_nodes = 0;       // nodes dropped (with everything under them)
  uint64_t pruned_value = 0;       // the weight of the dropped subtrees' tops

  uint64_t total() const { return value.empty() ? 0 : value[0]; }
};

// `min_share` in [0, 1]: a node is kept when its value is at least min_share × total.
FlameTree BuildFlameTree(const std::map<std::string, uint64_t>& folded, double min_share);

}  // namespace aiprof::server
