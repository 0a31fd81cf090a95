// Writes a distributed job's profile as the runtime would (one PROF_* directory per rank,
// info.json naming the rank, raw data through RawProcessWriter), with known contents: per
// step, operator ranges (the compute), then one gloo allreduce that every rank leaves when
// the last rank has arrived plus a fixed transit. Used by the cluster tests and
// bench/cluster, so both check `aiprof cluster` against numbers known in advance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::testing {

struct ClusterDataSpec {
  int ranks = 4;
  int steps = 5;
  uint32_t ops_per_step = 20;        // operator ranges per step and rank (2 records each)
  int hosts = 1;                     // ranks are split evenly across "node0", "node1", ...
  int64_t host_clock_offset_ns = 0;  // host k's realtime is k × this ahead of node0's
  int slow_rank = -1;                // this rank adds one long operator per step
  int64_t slow_extra_ns = 0;
  int64_t transit_ns = 50'000;  // the allreduce's time after the last rank arrives
  bool compress = true;
};

// What the cluster analysis must find, per [rank][step index].
struct ClusterDataTruth {
  std::vector<std::vector<int64_t>> computing_ns;
  std::vector<std::vector<int64_t>> allreduce_elapse_ns;
  std::vector<std::vector<int64_t>> allreduce_wait_ns;
  uint64_t events_per_rank = 0;
  uint64_t raw_bytes = 0;
};

// Records per step and rank for `ops_per_step` operators: the ops, the allreduce and the step.
inline uint64_t ClusterEventsPerStep(uint32_t ops_per_step) {
  return 2ull * ops_per_step + 4;
}

ClusterDataTruth WriteClusterData(const std::string& dir, const ClusterDataSpec& spec);

}  // namespace aiprof::testing
