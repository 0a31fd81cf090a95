// Longest paths on a step's graph (path_graph.h): the forward pass that gives every node its
// earliest time under given weights, the backward pass that gives its latest time (slack),
// and the walks that read the critical path back from the step's end.
//
// The order of evaluation is planned once per graph (PathPlan): chains are evaluated lazily
// in topological order, a join's inputs on other chains first (an explicit stack, at most
// one entry per chain), so no sort of all nodes is needed and planning is linear in nodes +
// edges. An input that would close a cycle (zero-length dependencies recorded at the same
// instant both ways) is ignored and counted. The order depends on the graph alone, never on
// the weights, so every forward pass (the recording's and each projection's) replays it: a
// straight loop over the nodes, none of it repeated where a projection changes nothing.
// With the recording's weights every node gets its recorded time.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
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
};

// What every pass over one graph reads, planned once per graph (PlanPasses).
class PathPlan {
 public:
  enum NodeBits : uint8_t {
    kCategoryMask = 0x07,  // PathCategory of the time from the chain's predecessor (or lead)
    kFirst = 1u << 3,      // the chain's first node: reached from the window's begin
    kVirtual = 1u << 4,    // a virtual chain's node: reached through its edges only
  };

  std::vector<uint32_t> order;        // every node, inputs before the nodes they reach
  std::vector<int64_t> chain_weight;  // per node: recorded weight from its predecessor
  std::vector<uint8_t> node_bits;     // per node: NodeBits
  std::vector<uint8_t> edge_ignored;  // per edge: closes a cycle, ignored by every pass
  uint64_t cycle_edges = 0;
  uint32_t categories = 0;  // a bit per PathCategory some node's or edge's time has

 private:
  friend void PlanPasses(const PathGraph& graph, PathPlan* plan, ForwardPass* recorded);
  // Planning scratch, kept between graphs so that a step allocates nothing once warm.
  std::vector<uint32_t> done_, join_cursor_;
  std::vector<uint8_t> on_stack_;
  std::vector<std::pair<uint32_t, uint32_t>> stack_;  // (chain, last node to evaluate)
};

// Plans the passes over `graph` and solves the recording's: every node's earliest time under
// the recorded weights (its recorded time).
void PlanPasses(const PathGraph& graph, PathPlan* plan, ForwardPass* recorded);

// A projection: the pass under `weights`, reusing `recorded` (the pass under the recording's
// weights) up to the first node whose weight changes. Returns the pass to read: `recorded`
// itself when no weight of the graph changes, else `scratch`.
const ForwardPass& SolveProjection(const PathGraph& graph, const PathPlan& plan,
                                   const PathWeights& weights, const ForwardPass& recorded,
                                   ForwardPass* scratch);

// Latest time per node (recorded weights) such that no member's step ends later than the last
// member's end does; kUnboundedSlack (INT64_MAX) for nodes that reach no member's end.
void SolveLatest(const PathGraph& graph, const PathPlan& plan, const ForwardPass& pass,
                 std::vector<int64_t>* latest);

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
// edge adds no latency (and so no segment). `path` is replaced.
void WalkJobPath(const PathGraph& graph, const PathPlan& plan, const ForwardPass& pass,
                 std::vector<WalkedSegment>* path, std::vector<uint32_t>* hop_owners = nullptr);

// Member m's own path: back from its end to its begin through its own chains only; where a
// node waited for another member (a peer's arrival at a collective), that wait is
// communication wait on its own chain. Sums to the member's step time. `path` is replaced.
void WalkMemberPath(const PathGraph& graph, const PathPlan& plan, const ForwardPass& pass,
                    uint32_t member, std::vector<WalkedSegment>* path);

}  // namespace aiprof::analysis
