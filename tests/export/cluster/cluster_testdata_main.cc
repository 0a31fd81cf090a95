// Writes a generated multi-rank profile (tests/support/cluster_data_builder.h) for the
// scripted cluster tests (the MPI comparison) and by hand:
//   cluster_testdata <dir> <ranks> <steps> <ops per step> [hosts]
#include <cstdio>
#include <cstdlib>

#include "support/cluster_data_builder.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <dir> <ranks> <steps> <ops per step> [hosts]\n", argv[0]);
    return 2;
  }
  aiprof::testing::ClusterDataSpec spec;
  spec.ranks = std::atoi(argv[2]);
  spec.steps = std::atoi(argv[3]);
  spec.ops_per_step = static_cast<uint32_t>(std::atoi(argv[4]));
  if (argc > 5) spec.hosts = std::atoi(argv[5]);
  spec.slow_rank = spec.ranks / 2;
  spec.slow_extra_ns = 500'000;
  spec.host_clock_offset_ns = 1'000'000;
  const aiprof::testing::ClusterDataTruth truth = aiprof::testing::WriteClusterData(argv[1], spec);
  std::printf("%d ranks, %llu events each, %llu bytes\n", spec.ranks,
              static_cast<unsigned long long>(truth.events_per_rank),
              static_cast<unsigned long long>(truth.raw_bytes));
  return 0;
}
