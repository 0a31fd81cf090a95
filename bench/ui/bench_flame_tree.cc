// The CPU view's tree building (server/flame_tree.h) on a profile of 10 M samples: folded
// stacks drawn from a random call tree (5,000 function names, stacks up to 48 frames deep,
// Zipf-like weights), the shape of a long job's on-CPU profile. Prints the distinct stacks,
// the nodes before and after pruning at the API's 0.05%, and the median build time.
//   bench_flame_tree [--stacks=N] [--samples=N] [--runs=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "server/flame_tree.h"

namespace {

uint64_t Flag(int argc, char** argv, const char* name, uint64_t fallback) {
  const size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, length) == 0 && argv[i][length] == '=') {
      return std::strtoull(argv[i] + length + 1, nullptr, 10);
    }
  }
  return fallback;
}

// Each stack extends a random earlier one (or starts at a root), so stacks share prefixes
// as real call trees do.
std::map<std::string, uint64_t> RandomFolded(uint64_t stacks, uint64_t samples) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int> name(0, 4999);
  std::vector<std::string> paths;
  std::vector<int> depth;
  for (uint64_t i = 0; i < stacks; ++i) {
    std::string path;
    int d = 0;
    if (!paths.empty() && random() % 8 != 0) {
      const size_t parent = random() % paths.size();
      path = paths[parent];
      d = depth[parent];
    }
    const int frames = 1 + static_cast<int>(random() % 4);
    for (int f = 0; f < frames && d < 48; ++f, ++d) {
      if (!path.empty()) path += ';';
      path += "function_" + std::to_string(name(random));
    }
    paths.push_back(std::move(path));
    depth.push_back(d);
  }
  std::map<std::string, uint64_t> folded;
  double harmonic = 0;
  for (uint64_t i = 1; i <= stacks; ++i) harmonic += 1.0 / static_cast<double>(i);
  for (uint64_t i = 0; i < stacks; ++i) {
    const auto weight = static_cast<uint64_t>(static_cast<double>(samples) /
                                              (harmonic * static_cast<double>(i + 1)));
    if (weight > 0) folded[paths[i]] += weight;
  }
  return folded;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t stacks = Flag(argc, argv, "--stacks", 200000);
  const uint64_t samples = Flag(argc, argv, "--samples", 10000000);
  const uint64_t runs = std::max<uint64_t>(1, Flag(argc, argv, "--runs", 7));
  const std::map<std::string, uint64_t> folded = RandomFolded(stacks, samples);
  const aiprof::server::FlameTree all = aiprof::server::BuildFlameTree(folded, 0);
  std::vector<double> ms;
  aiprof::server::FlameTree pruned;
  for (uint64_t r = 0; r < runs; ++r) {
    const auto begin = std::chrono::steady_clock::now();
    pruned = aiprof::server::BuildFlameTree(folded, 0.0005);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("folded stacks %zu, samples %llu\n", folded.size(),
              static_cast<unsigned long long>(all.total()));
  std::printf("nodes: %zu unpruned, %zu kept at 0.05%% (%llu pruned, %llu samples), %zu names\n",
              all.name.size(), pruned.name.size(),
              static_cast<unsigned long long>(pruned.pruned_nodes),
              static_cast<unsigned long long>(pruned.pruned_value), pruned.names.size());
  std::printf("build: median %.1f ms of %llu runs (min %.1f, max %.1f)\n", ms[ms.size() / 2],
              static_cast<unsigned long long>(runs), ms.front(), ms.back());
  return 0;
}
