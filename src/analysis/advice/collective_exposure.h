// Exposed time per collective, for the communication-overlap rule: each operation of the
// communication analysis (its one result: name, group, type, size, step, start and end) with
// the part of it no compute task of its scope overlaps (the overlap analysis's Computing
// lane), and the all-reduces' bucket shape per step, from which a DDP bucket_cap_mb
// suggestion follows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analysis_set.h"

namespace aiprof::analysis::advice {

struct ExposedCollective {
  const CommOpTiming* op = nullptr;
  int64_t duration_ns = 0;
  int64_t exposed_ns = 0;  // duration − the scope's Computing inside it
  double exposed_share() const {
    return duration_ns > 0 ? static_cast<double>(exposed_ns) / static_cast<double>(duration_ns) : 0;
  }
};

// Every operation on a scope of the overlap analysis, most exposed first. Operations of a
// process without a scope (host ranges on a device run: not communication there) are left
// out.
std::vector<ExposedCollective> ExposedCollectives(const AnalysisSet& set);

// The all-reduces inside steps with a known size.
struct AllReduceBuckets {
  uint64_t count = 0;
  uint64_t steps = 0;   // steps holding at least one
  double per_step = 0;  // median all-reduces per such step
  int64_t median_bytes = 0;
  const ExposedCollective* largest = nullptr;  // by size
  int64_t exposed_ns = 0;
};
AllReduceBuckets SummariseAllReduces(const std::vector<ExposedCollective>& collectives);

}  // namespace aiprof::analysis::advice
