#include "analysis/critical_path/path_solver.h"

#include <algorithm>
#include <cmath>

namespace aiprof::analysis {
namespace {

int64_t Scale(int64_t ns, double factor) {
  if (factor == 1.0) return ns;
  return static_cast<int64_t>(std::llround(static_cast<double>(ns) * factor));
}

// The weights of the graph's edges under a PathWeights.
class Weigher {
 public:
  Weigher(const PathGraph& graph, const PathWeights& weights) : g_(graph), w_(weights) {}

  double Factor(PathCategory category, uint32_t member, uint32_t owner) const {
    const size_t c = static_cast<size_t>(category);
    double factor = w_.category[c];
    if (member == w_.member) factor *= w_.member_category[c];
    if (owner != model::kNoRow && w_.owner_selected != nullptr && (*w_.owner_selected)[owner]) {
      factor *= w_.owner_factor;
    }
    return factor;
  }

  // The weight from node v - 1 of the chain (or, for its first node, from the window's
  // begin) to v. `join`: v's join, null when it is none.
  int64_t Chain(uint32_t v, const PathChain& chain, const PathJoin* join) const {
    const bool first = v == chain.begin;
    const PathCategory category = first ? chain.lead : static_cast<PathCategory>(g_.category[v]);
    const int64_t length = g_.time[v] - (first ? g_.begin_ns : g_.time[v - 1]);
    const double factor = Factor(category, chain.member, first ? model::kNoRow : g_.owner[v]);
    if (join == nullptr) return Scale(length, factor);
    const bool waits = first || (g_.flags[v] & kNodeWaitSegment) != 0;
    return Scale((waits ? 0 : length) + join->latency, factor);
  }

  int64_t Edge(const PathEdge& edge, const PathChain& to_chain, const PathJoin& join) const {
    return Scale(join.latency, Factor(edge.category, to_chain.member, model::kNoRow));
  }

 private:
  const PathGraph& g_;
  const PathWeights& w_;
};

// The time a node's chain predecessor (or the lead-in) reaches it at.
int64_t FromChain(const PathGraph& g, const Weigher& weigher, const std::vector<int64_t>& earliest,
                  uint32_t v, const PathChain& chain, const PathJoin* join) {
  const int64_t from = v == chain.begin ? g.begin_ns : earliest[v - 1];
  return from + weigher.Chain(v, chain, join);
}

}  // namespace

void SolveForward(const PathGraph& g, const PathWeights& weights, bool keep_order,
                  ForwardPass* pass) {
  const Weigher weigher(g, weights);
  std::vector<int64_t>& earliest = pass->earliest;
  earliest.assign(g.nodes(), 0);
  pass->order.clear();
  if (keep_order) pass->order.reserve(g.nodes());
  pass->cycle_edges = 0;
  const size_t chains = g.chains.size();
  std::vector<uint32_t> done(chains), join_cursor(chains);
  std::vector<uint8_t> on_stack(chains, 0);
  for (size_t c = 0; c < chains; ++c) {
    done[c] = g.chains[c].begin;
    join_cursor[c] = static_cast<uint32_t>(
        std::lower_bound(g.joins.begin(), g.joins.end(), g.chains[c].begin,
                         [](const PathJoin& j, uint32_t n) { return j.node < n; }) -
        g.joins.begin());
  }
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (chain, last node to evaluate)
  for (uint32_t start = 0; start < chains; ++start) {
    if (done[start] >= g.chains[start].end) continue;
    stack.push_back({start, g.chains[start].end - 1});
    on_stack[start] = 1;
    while (!stack.empty()) {
      const auto [c, target] = stack.back();
      if (done[c] > target) {
        on_stack[c] = 0;
        stack.pop_back();
        continue;
      }
      const PathChain& chain = g.chains[c];
      const uint32_t v = done[c];
      const PathJoin* join = nullptr;
      if (join_cursor[c] < g.joins.size() && g.joins[join_cursor[c]].node == v) {
        join = &g.joins[join_cursor[c]];
        bool waiting = false;
        for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
          const PathEdge& edge = g.edges[e];
          if (done[edge.from_chain] > edge.from || on_stack[edge.from_chain]) continue;
          stack.push_back({edge.from_chain, edge.from});
          on_stack[edge.from_chain] = 1;
          waiting = true;
          break;
        }
        if (waiting) continue;
      }
      int64_t at = chain.kind == ChainKind::kVirtual
                       ? INT64_MIN
                       : FromChain(g, weigher, earliest, v, chain, join);
      if (join != nullptr) {
        for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
          const PathEdge& edge = g.edges[e];
          if (done[edge.from_chain] <= edge.from) {  // its chain waits on this one: a cycle
            ++pass->cycle_edges;
            continue;
          }
          at = std::max(at, earliest[edge.from] + weigher.Edge(edge, chain, *join));
        }
        ++join_cursor[c];
      }
      earliest[v] = at == INT64_MIN ? g.time[v] : at;
      ++done[c];
      if (keep_order) pass->order.push_back(v);
    }
  }
}

std::vector<int64_t> SolveLatest(const PathGraph& g, const PathWeights& weights,
                                 const ForwardPass& pass) {
  const Weigher weigher(g, weights);
  std::vector<int64_t> latest(g.nodes(), kUnboundedSlack);
  if (g.members.empty()) return latest;
  const int64_t end = pass.earliest[g.members[g.LastMember()].end_node];
  for (const PathMember& member : g.members) {
    if (member.end_node != model::kNoRow) latest[member.end_node] = end;
  }
  for (auto it = pass.order.rbegin(); it != pass.order.rend(); ++it) {
    const uint32_t v = *it;
    if (latest[v] == kUnboundedSlack) continue;
    const PathChain& chain = g.chains[g.node_chain[v]];
    const PathJoin* join = g.JoinOf(v);
    if (chain.kind != ChainKind::kVirtual && v > chain.begin) {
      latest[v - 1] = std::min(latest[v - 1], latest[v] - weigher.Chain(v, chain, join));
    }
    if (join == nullptr) continue;
    for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
      const PathEdge& edge = g.edges[e];
      latest[edge.from] = std::min(latest[edge.from], latest[v] - weigher.Edge(edge, chain, *join));
    }
  }
  return latest;
}

namespace {

// Collects a walked path backwards, merging neighbours of the same piece, then reverses it.
class PathCollector {
 public:
  void Add(int64_t begin, int64_t end, PathCategory category, uint32_t owner, uint32_t chain,
           bool latency) {
    if (end <= begin) return;
    if (!segments_.empty()) {
      WalkedSegment& last = segments_.back();
      if (last.begin_ns == end && last.category == category && last.owner == owner &&
          last.chain == chain && last.latency == latency) {
        last.begin_ns = begin;
        return;
      }
    }
    segments_.push_back({begin, end, category, owner, chain, latency});
  }
  std::vector<WalkedSegment> Take() {
    std::reverse(segments_.begin(), segments_.end());
    return std::move(segments_);
  }

 private:
  std::vector<WalkedSegment> segments_;
};

}  // namespace

std::vector<WalkedSegment> WalkJobPath(const PathGraph& g, const ForwardPass& pass,
                                       std::vector<uint32_t>* hop_owners) {
  PathCollector path;
  if (g.members.empty()) return path.Take();
  const PathWeights recorded;
  const Weigher weigher(g, recorded);
  const std::vector<int64_t>& at = pass.earliest;
  uint32_t v = g.members[g.LastMember()].end_node;
  // Each step moves to an input that is reached no later; the guard only stops a walk
  // around a zero-length cycle the forward pass ignored.
  for (size_t guard = 0; guard <= g.nodes() + g.edges.size(); ++guard) {
    const uint32_t c = g.node_chain[v];
    const PathChain& chain = g.chains[c];
    const PathJoin* join = g.JoinOf(v);
    if (chain.kind != ChainKind::kVirtual) {
      const int64_t through_chain = FromChain(g, weigher, at, v, chain, join);
      if (through_chain == at[v]) {
        if (v == chain.begin) {
          path.Add(g.begin_ns, at[v], chain.lead, model::kNoRow, c, false);
          break;
        }
        path.Add(at[v - 1], at[v], static_cast<PathCategory>(g.category[v]), g.owner[v], c, false);
        --v;
        continue;
      }
    }
    bool moved = false;
    if (join != nullptr) {
      for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
        const PathEdge& edge = g.edges[e];
        if (at[edge.from] + weigher.Edge(edge, chain, *join) != at[v]) continue;
        path.Add(at[edge.from], at[v], edge.category, model::kNoRow, c, true);
        if (hop_owners != nullptr) hop_owners->push_back(g.owner[v]);
        v = edge.from;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    // Nothing reaches v exactly (not expected): follow the chain, else stop.
    if (chain.kind == ChainKind::kVirtual || v == chain.begin) break;
    path.Add(at[v - 1], at[v], static_cast<PathCategory>(g.category[v]), g.owner[v], c, false);
    --v;
  }
  return path.Take();
}

std::vector<WalkedSegment> WalkMemberPath(const PathGraph& g, const ForwardPass& pass,
                                          uint32_t member) {
  PathCollector path;
  const PathWeights recorded;
  const Weigher weigher(g, recorded);
  const std::vector<int64_t>& at = pass.earliest;
  const int64_t begin = g.members[member].begin_ns;
  uint32_t v = g.members[member].end_node;
  for (size_t guard = 0; guard <= g.nodes() + g.edges.size() && at[v] > begin; ++guard) {
    const uint32_t c = g.node_chain[v];
    const PathChain& chain = g.chains[c];
    const PathJoin* join = g.JoinOf(v);
    // The member's own input that reaches v latest (ties: the chain's predecessor).
    int64_t best = INT64_MIN, from_time = 0, weight = 0;
    uint32_t from = model::kNoRow;
    PathCategory category = PathCategory::kIdle;
    uint32_t owner = model::kNoRow;
    bool latency = false;
    if (chain.kind != ChainKind::kVirtual) {
      weight = weigher.Chain(v, chain, join);
      from_time = v == chain.begin ? g.begin_ns : at[v - 1];
      best = from_time + weight;
      from = v == chain.begin ? model::kNoRow : v - 1;
      category = v == chain.begin ? chain.lead : static_cast<PathCategory>(g.category[v]);
      owner = v == chain.begin ? model::kNoRow : g.owner[v];
    }
    if (join != nullptr) {
      for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
        const PathEdge& edge = g.edges[e];
        if (g.chains[edge.from_chain].member != member) continue;
        const int64_t w = weigher.Edge(edge, chain, *join);
        if (at[edge.from] + w <= best) continue;
        best = at[edge.from] + w;
        from_time = at[edge.from];
        weight = w;
        from = edge.from;
        category = edge.category;
        owner = model::kNoRow;
        latency = true;
      }
    }
    if (best == INT64_MIN) break;
    // Reached later than its own inputs allow: it waited for another member (a peer).
    const int64_t own_end = at[v];
    const int64_t wait_end = own_end - weight;
    path.Add(std::max(wait_end, begin), own_end, category, owner, c, latency);
    path.Add(std::max(from_time, begin), std::max(wait_end, begin), PathCategory::kCommWait, owner,
             c, false);
    if (from == model::kNoRow || from_time <= begin) break;
    v = from;
  }
  return path.Take();
}

}  // namespace aiprof::analysis
