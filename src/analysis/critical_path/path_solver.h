// Longest paths on a step's graph (path_graph.h): the forward pass that gives every node its
// earliest time under given weights, the backward pass that gives its latest time (slack),
// and the walks that read the critical path back from the step's end.
//
// The forward pass evaluates chains lazily in topological order: a join's inputs on other
// chains are evaluated first (an explicit stack, at most one entry per chain), so no sort of
// all nodes is needed and a pass is linear in nodes + edges. An input that would close a
// cycle (zero-length dependencies recorded at the same instant both ways) is ignored and
// counted. With the recording's weights every node gets its recorded time.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/critical_path/path_graph.h"

namespace aiprof::analysis {

inline constexpr int64_t kUnboundedSlack = INT64_MAX;

// How much each piece of time is scaled: 1 everywhere is the recording.
struct PathWeights {
  std::array<double, kPathCategoryCount> category{1, 1, 1, 1, 1, 1, 1};
  // One member's (a rank's) chains get these factors too (multiplied); kNoRow: none.
  uint32_t member = model::kNoRow;
  std::array<double, kPathCategoryCount> member_category{1, 1, 1, 1, 1, 1, 1};
  // Per PathOwner: 1 when its segments scale by `owner_factor` (an operator or kernel and
  // everything inside it); null: none.
  const std::vector<uint8_t>* owner_selected = nullptr;
  double owner_factor = 1;
};

struct ForwardPass {
  std::vector<int64_t> earliest;  // per node
  std::vector<uint32_t> order;    // nodes in the order evaluated (a topological order)
  uint64_t cycle_edges = 0;       // inputs ignored because they closed a cycle
};

// `keep_order`: fill `order` (the backward pass needs it).
void SolveForward(const PathGraph& graph, const PathWeights& weights, bool keep_order,
                  ForwardPass* pass);

// Latest time per node such that no member's step ends later than the last member's end
// does; kUnboundedSlack-distance (INT64_MAX) for nodes that reach no member's end.
std::vector<int64_t> SolveLatest(const PathGraph& graph, const PathWeights& weights,
                                 const ForwardPass& pass);

// One piece of a walked path, in time order.
struct WalkedSegment {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  PathCategory category = PathCategory::kIdle;
  uint32_t owner = model::kNoRow;  // PathOwner whose self time it is; kNoRow: gap or latency
  uint32_t chain = 0;
  bool latency = false;  // an edge's latency (launch delay, hand-off, transit after arrival)
};

// The longest path to the last member's end, from the window's begin (recorded weights):
// where two inputs tie, the chain's own predecessor wins, then the earliest-listed edge.
// `hop_owners` (may be null) gets, for each node the path reached through an edge, the owner
// of the segment ending there (kNoRow: none): the path runs through that slice's end (a sync
// call returning when the device finished) though not through its self time, even where the
// edge adds no latency (and so no segment).
std::vector<WalkedSegment> WalkJobPath(const PathGraph& graph, const ForwardPass& pass,
                                       std::vector<uint32_t>* hop_owners = nullptr);

// Member m's own path: back from its end to its begin through its own chains only; where a
// node waited for another member (a peer's arrival at a collective), that wait is
// communication wait on its own chain. Sums to the member's step time.
std::vector<WalkedSegment> WalkMemberPath(const PathGraph& graph, const ForwardPass& pass,
                                          uint32_t member);

}  // namespace aiprof::analysis
