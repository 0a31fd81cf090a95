#include "analysis/run_extent.h"

#include <algorithm>

namespace aiprof::analysis {

RunExtent ComputeRunExtent(const model::Model& m) {
  int64_t begin = INT64_MAX;
  int64_t end = INT64_MIN;
  for (int64_t t : m.slices.ts) begin = std::min(begin, t);
  for (int64_t e : m.slices.end) end = std::max(end, e);
  for (int64_t t : m.instants.ts) {
    begin = std::min(begin, t);
    end = std::max(end, t);
  }
  for (int64_t t : m.counters.ts) {
    begin = std::min(begin, t);
    end = std::max(end, t);
  }
  RunExtent extent;
  extent.begin_ns = begin == INT64_MAX ? m.start_ns : begin;
  extent.end_ns = end == INT64_MIN ? m.end_ns : end;
  return extent;
}

}  // namespace aiprof::analysis
