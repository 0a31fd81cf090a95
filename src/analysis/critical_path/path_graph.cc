#include "analysis/critical_path/path_graph.h"

#include <algorithm>

namespace aiprof::analysis {

uint32_t PathGraph::LastMember() const {
  uint32_t last = 0;
  for (uint32_t m = 1; m < members.size(); ++m) {
    if (members[m].end_ns > members[last].end_ns) last = m;
  }
  return last;
}

}  // namespace aiprof::analysis
