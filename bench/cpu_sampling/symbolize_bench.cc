// Offline symbolisation + aggregation of 1 M CPU samples: a model whose samples point at
// real code of this process (addresses drawn from its executable mappings: the bench,
// libstdc++, libc, libm...), 20 000 distinct stacks of 16 frames, then SymbolizeCpuProfile,
// CpuCostByThread and FoldedStacks as `aiprof export` runs them. Prints the median of RUNS.
//   bench_cpu_symbolize [samples] [runs]
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "analysis/cpu_profile/cpu_profile.h"
#include "model/model.h"

using namespace aiprof;

namespace {

model::Model BuildModel(size_t samples) {
  model::Model m;
  m.processes.pid.push_back(1);
  m.processes.host.push_back(model::kNoString);
  m.processes.name.push_back(model::kNoString);
  m.processes.label.push_back(model::kNoString);
  m.processes.sort_index.push_back(0);
  m.processes.device_id.push_back(-1);
  m.processes.rank.push_back(-1);
  m.processes.metadata.emplace_back();
  for (uint32_t t = 0; t < 8; ++t) {
    m.threads.process.push_back(0);
    m.threads.tid.push_back(100 + t);
    m.threads.name.push_back(model::kNoString);
    m.threads.sort_index.push_back(t);
  }
  FILE* maps = std::fopen("/proc/self/maps", "r");
  char line[4096];
  std::vector<std::pair<uint64_t, uint64_t>> code;
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    uint64_t start, end, offset;
    char perms[8];
    int at = 0;
    if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms,
                    &offset, &at) < 4 ||
        perms[2] != 'x' || line[at] != '/') {
      continue;
    }
    std::string path = line + at;
    path.pop_back();
    model::CpuMappingTable& t = m.cpu.mappings;
    t.process.push_back(0);
    t.start.push_back(start);
    t.end.push_back(end);
    t.file_offset.push_back(offset);
    t.path.push_back(m.strings.Intern(path));
    t.build_id.emplace_back();
    code.push_back({start, end});
  }
  std::fclose(maps);
  std::mt19937_64 random(42);
  constexpr uint32_t kStacks = 20000, kDepth = 16;
  for (uint32_t s = 0; s < kStacks; ++s) {
    m.cpu.stacks.process.push_back(0);
    m.cpu.stacks.kernel_leaf.push_back(0);
    m.cpu.stacks.copy.push_back(UINT32_MAX);
    for (uint32_t f = 0; f < kDepth; ++f) {
      const auto& [start, end] = code[random() % code.size()];
      m.cpu.stacks.frames.push_back(start + random() % (end - start));
    }
    m.cpu.stacks.begin.push_back(static_cast<uint32_t>(m.cpu.stacks.frames.size()));
  }
  for (size_t i = 0; i < samples; ++i) {
    m.cpu.samples.ts.push_back(static_cast<int64_t>(i) * 1000);
    m.cpu.samples.thread.push_back(static_cast<uint32_t>(random() % 8));
    m.cpu.samples.stack.push_back(static_cast<uint32_t>(random() % kStacks));
    m.cpu.samples.flags.push_back(0);
    m.cpu.samples.cpu.push_back(0);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  size_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  model::Model m = BuildModel(samples);
  std::vector<double> seconds;
  size_t functions = 0;
  for (int r = 0; r < runs; ++r) {
    auto begin = std::chrono::steady_clock::now();
    analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(m);
    auto costs = analysis::CpuCostByThread(m, profile);
    auto folded = analysis::FoldedStacks(m, profile, false);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
    functions = profile.function_name.size();
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%zu samples, %zu functions: median %.3f s (min %.3f, max %.3f) over %d runs\n",
              samples, functions, seconds[seconds.size() / 2], seconds.front(), seconds.back(),
              runs);
  return 0;
}
