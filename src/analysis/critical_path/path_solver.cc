#include "analysis/critical_path/path_solver.h"

#include <algorithm>
#include <cmath>

namespace aiprof::analysis {
namespace {

int64_t Scale(int64_t ns, double factor) {
  if (factor == 1.0) return ns;
  return static_cast<int64_t>(std::llround(static_cast<double>(ns) * factor));
}

// The factors of a PathWeights, looked up per piece of time: the category's, times the
// member's when the piece is on that member's chains, times the operator's when its owner
// is selected (multiplied in that order, so every pass scales a piece the same way).
class Factors {
 public:
  explicit Factors(const PathWeights& weights) : w_(weights) {
    for (size_t c = 0; c < kPathCategoryCount; ++c) {
      plain_[c] = w_.category[c];
      member_[c] = w_.category[c] * w_.member_category[c];
    }
  }

  double Of(PathCategory category, uint32_t member, uint32_t owner) const {
    const size_t c = static_cast<size_t>(category);
    double factor = member == w_.member ? member_[c] : plain_[c];
    if (owner != model::kNoRow && w_.owner_selected != nullptr && (*w_.owner_selected)[owner]) {
      factor *= w_.owner_factor;
    }
    return factor;
  }

  // True when no piece of time of these categories (a bit per PathCategory) changes.
  bool IdentityOn(uint32_t categories) const {
    for (size_t c = 0; c < kPathCategoryCount; ++c) {
      if ((categories & (1u << c)) != 0 && (plain_[c] != 1.0 || member_[c] != 1.0)) return false;
    }
    return w_.owner_selected == nullptr || w_.owner_factor == 1.0;
  }

 private:
  const PathWeights& w_;
  std::array<double, kPathCategoryCount> plain_{}, member_{};
};

}  // namespace

namespace {

// Each node's recorded weight from its chain predecessor and what scales it.
void PrepareNodes(const PathGraph& g, PathPlan* plan) {
  plan->chain_weight.resize(g.nodes());
  plan->node_bits.resize(g.nodes());
  plan->categories = 0;
  for (const PathChain& chain : g.chains) {
    const bool virtual_chain = chain.kind == ChainKind::kVirtual;
    for (uint32_t v = chain.begin; v < chain.end; ++v) {
      const bool first = v == chain.begin;
      const PathCategory category = first ? chain.lead : static_cast<PathCategory>(g.category[v]);
      const PathJoin* join = g.JoinOf(v);
      const int64_t length = g.time[v] - (first ? g.begin_ns : g.time[v - 1]);
      const bool waits = first || (g.flags[v] & kNodeWaitSegment) != 0;
      int64_t weight = length;
      if (join != nullptr) weight = (waits ? 0 : length) + join->latency;
      plan->chain_weight[v] = virtual_chain ? 0 : weight;
      plan->node_bits[v] =
          static_cast<uint8_t>(static_cast<uint8_t>(category) | (first ? PathPlan::kFirst : 0) |
                               (virtual_chain ? PathPlan::kVirtual : 0));
      if (!virtual_chain) plan->categories |= 1u << static_cast<uint32_t>(category);
    }
  }
  for (const PathEdge& edge : g.edges) {
    plan->categories |= 1u << static_cast<uint32_t>(edge.category);
  }
}

}  // namespace

void PlanPasses(const PathGraph& g, PathPlan* plan, ForwardPass* recorded) {
  PrepareNodes(g, plan);
  const size_t chains = g.chains.size();
  plan->order.clear();
  plan->order.reserve(g.nodes());
  plan->edge_ignored.assign(g.edges.size(), 0);
  plan->cycle_edges = 0;
  std::vector<int64_t>& earliest = recorded->earliest;
  earliest.resize(g.nodes());
  std::vector<uint32_t>& done = plan->done_;
  std::vector<uint32_t>& join_cursor = plan->join_cursor_;
  std::vector<uint8_t>& on_stack = plan->on_stack_;
  done.resize(chains);
  join_cursor.resize(chains);
  on_stack.assign(chains, 0);
  for (size_t c = 0; c < chains; ++c) {
    done[c] = g.chains[c].begin;
    join_cursor[c] = static_cast<uint32_t>(
        std::lower_bound(g.joins.begin(), g.joins.end(), g.chains[c].begin,
                         [](const PathJoin& j, uint32_t n) { return j.node < n; }) -
        g.joins.begin());
  }
  std::vector<std::pair<uint32_t, uint32_t>>& stack = plan->stack_;
  stack.clear();
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
      const uint32_t v = done[c];
      const uint8_t bits = plan->node_bits[v];
      // The recording's weights: each piece as recorded.
      int64_t at = INT64_MIN;
      if ((bits & PathPlan::kVirtual) == 0) {
        at = ((bits & PathPlan::kFirst) ? g.begin_ns : earliest[v - 1]) + plan->chain_weight[v];
      }
      if (join_cursor[c] < g.joins.size() && g.joins[join_cursor[c]].node == v) {
        const PathJoin& join = g.joins[join_cursor[c]];
        bool waiting = false;
        for (uint32_t e = join.first_edge; e < join.first_edge + join.edge_count; ++e) {
          const PathEdge& edge = g.edges[e];
          if (done[edge.from_chain] > edge.from || on_stack[edge.from_chain]) continue;
          stack.push_back({edge.from_chain, edge.from});
          on_stack[edge.from_chain] = 1;
          waiting = true;
          break;
        }
        if (waiting) continue;
        for (uint32_t e = join.first_edge; e < join.first_edge + join.edge_count; ++e) {
          const PathEdge& edge = g.edges[e];
          if (done[edge.from_chain] <= edge.from) {  // its chain waits on this one: a cycle
            plan->edge_ignored[e] = 1;
            ++plan->cycle_edges;
            continue;
          }
          at = std::max(at, earliest[edge.from] + join.latency);
        }
        ++join_cursor[c];
      }
      earliest[v] = at == INT64_MIN ? g.time[v] : at;
      ++done[c];
      plan->order.push_back(v);
    }
  }
}

namespace {

// Node v's earliest time from its inputs' (every input before it in the plan's order).
inline int64_t Evaluate(const PathGraph& g, const PathPlan& plan, const Factors& factors,
                        const std::vector<int64_t>& earliest, uint32_t v) {
  const uint8_t bits = plan.node_bits[v];
  const uint32_t member = g.chains[g.node_chain[v]].member;
  int64_t at = INT64_MIN;
  if ((bits & PathPlan::kVirtual) == 0) {
    const int64_t from = (bits & PathPlan::kFirst) ? g.begin_ns : earliest[v - 1];
    const PathCategory category = static_cast<PathCategory>(bits & PathPlan::kCategoryMask);
    const uint32_t owner = (bits & PathPlan::kFirst) ? model::kNoRow : g.owner[v];
    at = from + Scale(plan.chain_weight[v], factors.Of(category, member, owner));
  }
  const uint32_t j = g.node_join[v];
  if (j != model::kNoRow) {
    const PathJoin& join = g.joins[j];
    for (uint32_t e = join.first_edge; e < join.first_edge + join.edge_count; ++e) {
      if (plan.edge_ignored[e]) continue;
      const PathEdge& edge = g.edges[e];
      at = std::max(at, earliest[edge.from] +
                            Scale(join.latency, factors.Of(edge.category, member, model::kNoRow)));
    }
  }
  return at == INT64_MIN ? g.time[v] : at;
}

// Whether any weight into node v differs from the recording's.
bool Changes(const PathGraph& g, const PathPlan& plan, const Factors& factors, uint32_t v) {
  const uint8_t bits = plan.node_bits[v];
  const uint32_t member = g.chains[g.node_chain[v]].member;
  if ((bits & PathPlan::kVirtual) == 0) {
    const PathCategory category = static_cast<PathCategory>(bits & PathPlan::kCategoryMask);
    const uint32_t owner = (bits & PathPlan::kFirst) ? model::kNoRow : g.owner[v];
    if (factors.Of(category, member, owner) != 1.0) return true;
  }
  const uint32_t j = g.node_join[v];
  if (j == model::kNoRow) return false;
  const PathJoin& join = g.joins[j];
  for (uint32_t e = join.first_edge; e < join.first_edge + join.edge_count; ++e) {
    if (factors.Of(g.edges[e].category, member, model::kNoRow) != 1.0) return true;
  }
  return false;
}

}  // namespace

const ForwardPass& SolveProjection(const PathGraph& g, const PathPlan& plan,
                                   const PathWeights& weights, const ForwardPass& recorded,
                                   ForwardPass* scratch) {
  const Factors factors(weights);
  if (factors.IdentityOn(plan.categories)) return recorded;
  // Up to the first node a changed weight reaches, every node keeps its recorded time.
  size_t first = 0;
  while (first < plan.order.size() && !Changes(g, plan, factors, plan.order[first])) ++first;
  if (first == plan.order.size()) return recorded;
  std::vector<int64_t>& earliest = scratch->earliest;
  earliest = recorded.earliest;
  for (size_t i = first; i < plan.order.size(); ++i) {
    const uint32_t v = plan.order[i];
    earliest[v] = Evaluate(g, plan, factors, earliest, v);
  }
  return *scratch;
}

void SolveLatest(const PathGraph& g, const PathPlan& plan, const ForwardPass& pass,
                 std::vector<int64_t>* out) {
  std::vector<int64_t>& latest = *out;
  latest.assign(g.nodes(), kUnboundedSlack);
  if (g.members.empty()) return;
  const int64_t end = pass.earliest[g.members[g.LastMember()].end_node];
  for (const PathMember& member : g.members) {
    if (member.end_node != model::kNoRow) latest[member.end_node] = end;
  }
  for (auto it = plan.order.rbegin(); it != plan.order.rend(); ++it) {
    const uint32_t v = *it;
    if (latest[v] == kUnboundedSlack) continue;
    const uint8_t bits = plan.node_bits[v];
    if ((bits & (PathPlan::kVirtual | PathPlan::kFirst)) == 0) {
      latest[v - 1] = std::min(latest[v - 1], latest[v] - plan.chain_weight[v]);
    }
    const PathJoin* join = g.JoinOf(v);
    if (join == nullptr) continue;
    for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
      const uint32_t from = g.edges[e].from;
      latest[from] = std::min(latest[from], latest[v] - join->latency);
    }
  }
}

namespace {

// Collects a walked path backwards, merging neighbours of the same piece, then reverses it.
class PathCollector {
 public:
  explicit PathCollector(std::vector<WalkedSegment>* segments) : segments_(*segments) {
    segments_.clear();
  }
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
  void Finish() { std::reverse(segments_.begin(), segments_.end()); }

 private:
  std::vector<WalkedSegment>& segments_;
};

PathCategory CategoryOf(const PathPlan& plan, uint32_t v) {
  return static_cast<PathCategory>(plan.node_bits[v] & PathPlan::kCategoryMask);
}

}  // namespace

void WalkJobPath(const PathGraph& g, const PathPlan& plan, const ForwardPass& pass,
                 std::vector<WalkedSegment>* segments, std::vector<uint32_t>* hop_owners) {
  PathCollector path(segments);
  if (g.members.empty()) {
    path.Finish();
    return;
  }
  const std::vector<int64_t>& at = pass.earliest;
  uint32_t v = g.members[g.LastMember()].end_node;
  // Each step moves to an input that is reached no later; the guard only stops a walk
  // around a zero-length cycle the forward pass ignored.
  for (size_t guard = 0; guard <= g.nodes() + g.edges.size(); ++guard) {
    const uint32_t c = g.node_chain[v];
    const uint8_t bits = plan.node_bits[v];
    const bool first = (bits & PathPlan::kFirst) != 0;
    const PathJoin* join = g.JoinOf(v);
    if ((bits & PathPlan::kVirtual) == 0) {
      const int64_t through_chain = (first ? g.begin_ns : at[v - 1]) + plan.chain_weight[v];
      if (through_chain == at[v]) {
        if (first) {
          path.Add(g.begin_ns, at[v], CategoryOf(plan, v), model::kNoRow, c, false);
          break;
        }
        path.Add(at[v - 1], at[v], CategoryOf(plan, v), g.owner[v], c, false);
        --v;
        continue;
      }
    }
    bool moved = false;
    if (join != nullptr) {
      for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
        const PathEdge& edge = g.edges[e];
        if (at[edge.from] + join->latency != at[v]) continue;
        path.Add(at[edge.from], at[v], edge.category, model::kNoRow, c, true);
        if (hop_owners != nullptr) hop_owners->push_back(g.owner[v]);
        v = edge.from;
        moved = true;
        break;
      }
    }
    if (moved) continue;
    // Nothing reaches v exactly (not expected): follow the chain, else stop.
    if ((bits & PathPlan::kVirtual) != 0 || first) break;
    path.Add(at[v - 1], at[v], CategoryOf(plan, v), g.owner[v], c, false);
    --v;
  }
  path.Finish();
}

void WalkMemberPath(const PathGraph& g, const PathPlan& plan, const ForwardPass& pass,
                    uint32_t member, std::vector<WalkedSegment>* segments) {
  PathCollector path(segments);
  const std::vector<int64_t>& at = pass.earliest;
  const int64_t begin = g.members[member].begin_ns;
  uint32_t v = g.members[member].end_node;
  for (size_t guard = 0; guard <= g.nodes() + g.edges.size() && at[v] > begin; ++guard) {
    const uint32_t c = g.node_chain[v];
    const uint8_t bits = plan.node_bits[v];
    const bool first = (bits & PathPlan::kFirst) != 0;
    const PathJoin* join = g.JoinOf(v);
    // The member's own input that reaches v latest (ties: the chain's predecessor).
    int64_t best = INT64_MIN, from_time = 0, weight = 0;
    uint32_t from = model::kNoRow;
    PathCategory category = PathCategory::kIdle;
    uint32_t owner = model::kNoRow;
    bool latency = false;
    if ((bits & PathPlan::kVirtual) == 0) {
      weight = plan.chain_weight[v];
      from_time = first ? g.begin_ns : at[v - 1];
      best = from_time + weight;
      from = first ? model::kNoRow : v - 1;
      category = CategoryOf(plan, v);
      owner = first ? model::kNoRow : g.owner[v];
    }
    if (join != nullptr) {
      for (uint32_t e = join->first_edge; e < join->first_edge + join->edge_count; ++e) {
        const PathEdge& edge = g.edges[e];
        if (g.chains[edge.from_chain].member != member) continue;
        if (at[edge.from] + join->latency <= best) continue;
        best = at[edge.from] + join->latency;
        from_time = at[edge.from];
        weight = join->latency;
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
  path.Finish();
}

}  // namespace aiprof::analysis
