#include "analysis/critical_path/path_graph.h"

#include <algorithm>

namespace aiprof::analysis {

const PathJoin* PathGraph::JoinOf(uint32_t node) const {
  if ((flags[node] & kNodeJoin) == 0) return nullptr;
  auto found = std::lower_bound(joins.begin(), joins.end(), node,
                                [](const PathJoin& join, uint32_t n) { return join.node < n; });
  return found != joins.end() && found->node == node ? &*found : nullptr;
}

uint32_t PathGraph::LastMember() const {
  uint32_t last = 0;
  for (uint32_t m = 1; m < members.size(); ++m) {
    if (members[m].end_ns > members[last].end_ns) last = m;
  }
  return last;
}

}  // namespace aiprof::analysis
