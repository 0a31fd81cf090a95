// aiprof cluster at scale, on generated profiles (tests/support/cluster_data_builder.h).
// Each measured run is a forked child, so its peak RSS is its own.
//
//   bench_cluster merge --ranks=1024 --events=1000000 [--jobs=2] [--stages=N] [--dir=PATH]
//     one rank of --events is parsed into its summary, which is copied to --ranks summary
//     files (as the cache beside each rank's data holds them); measured: read every file
//     (--jobs at once, as aiprof cluster reads its caches), merge, write
//     cluster_analysis_output/. --stages: the copies name Megatron's pipeline and
//     data-parallel groups of N pipeline stages (the layout is known: N stage rows a step);
//     without it the layout is unknown (one stage row a step).
//   bench_cluster raw --ranks=64 --events=1000000 --jobs=2 [--dir=PATH] [--keep]
//     --ranks PROF_* directories of --events each are written (unless --dir holds them);
//     measured: discovery, parse + analysis of every rank (--jobs at once), merge, write.
//     A one-rank run gives the per-rank term of the memory formula.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/cluster/cluster_merge.h"
#include "analysis/cluster/rank_summary.h"
#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_job.h"
#include "support/cluster_data_builder.h"

namespace {

namespace fs = std::filesystem;
using aiprof::analysis::cluster::RankSummary;

struct Measure {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system: less sensitive than wall time to a busy machine
  double peak_mib = 0;
};

// Runs `body` in a forked child; its wall time and peak RSS.
Measure InChild(const std::function<int()>& body) {
  const auto begin = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::cout.setstate(std::ios::failbit);  // the child's report is not the bench's
    _exit(body());
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measure m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  m.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  m.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_cluster: the measured run failed (status %d)\n", status);
    std::exit(1);
  }
  return m;
}

aiprof::testing::ClusterDataSpec Spec(int ranks, uint64_t events) {
  aiprof::testing::ClusterDataSpec spec;
  spec.ranks = ranks;
  spec.ops_per_step = 1000;
  spec.steps = static_cast<int>(
      std::max<uint64_t>(1, events / aiprof::testing::ClusterEventsPerStep(spec.ops_per_step)));
  spec.slow_rank = ranks / 2;
  spec.slow_extra_ns = 200'000;
  return spec;
}

std::vector<RankSummary> SummarizeAll(const std::string& dir, unsigned jobs) {
  const aiprof::exporter::RankDiscovery discovery = aiprof::exporter::DiscoverRanks(dir);
  std::vector<size_t> all(discovery.ranks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::string> problems;
  return aiprof::exporter::SummarizeRanks(discovery.ranks, all, {jobs, false}, &problems, nullptr);
}

// Megatron's layout of `stages` pipeline stages (ranks / stages pipelines): stage s of
// pipeline p is rank p + s * pipelines; a rank's data-parallel group is its stage.
std::vector<aiprof::model::ProcessGroupInfo> PipelineGroups(int rank, int ranks, int stages) {
  const int pipelines = ranks / stages;
  aiprof::model::ProcessGroupInfo pipeline{
      "pp" + std::to_string(rank % pipelines), "pp", "gloo", rank / pipelines, {}};
  for (int s = 0; s < stages; ++s) pipeline.ranks.push_back(rank % pipelines + s * pipelines);
  aiprof::model::ProcessGroupInfo data{
      "dp" + std::to_string(rank / pipelines), "dp", "gloo", rank % pipelines, {}};
  for (int p = 0; p < pipelines; ++p) data.ranks.push_back(rank / pipelines * pipelines + p);
  return {pipeline, data};
}

int Merge(int ranks, uint64_t events, unsigned jobs, int stages, const fs::path& dir) {
  if (stages < 0 || (stages > 0 && ranks % stages != 0)) {
    std::fprintf(stderr, "bench_cluster: --stages=%d does not divide --ranks=%d\n", stages, ranks);
    return 2;
  }
  const fs::path one = dir / "one_rank", summaries = dir / "summaries";
  fs::remove_all(dir);
  aiprof::testing::WriteClusterData(one.string(), Spec(1, events));
  std::vector<RankSummary> parsed = SummarizeAll(one.string(), 1);
  if (parsed.size() != 1) return 1;
  fs::create_directories(summaries);
  for (int r = 0; r < ranks; ++r) {
    RankSummary copy = parsed[0];
    copy.rank = r;
    copy.world_size = ranks;
    copy.host = "node" + std::to_string(r / 8);
    for (auto& op : copy.communication) op.rank = r;
    for (auto& step : copy.steps) step.computing_ns += (r % 7) * 1000;
    for (auto& group : copy.groups) {
      group.ranks.clear();
      for (int g = 0; g < ranks; ++g) group.ranks.push_back(g);
    }
    if (stages > 0) copy.process_groups = PipelineGroups(r, ranks, stages);
    std::ofstream(summaries / ("rank" + std::to_string(r) + ".bin"), std::ios::binary)
        << aiprof::analysis::cluster::SerializeRankSummary(copy);
  }
  const Measure m = InChild([&] {
    // Read as `aiprof cluster` reads cached summaries: --jobs files at once.
    std::vector<RankSummary> all(static_cast<size_t>(ranks));
    std::atomic<int> next{0}, failed{0};
    auto reader = [&] {
      for (int r = next++; r < ranks; r = next++) {
        std::ifstream in(summaries / ("rank" + std::to_string(r) + ".bin"), std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        std::string error;
        if (!aiprof::analysis::cluster::DeserializeRankSummary(
                bytes.str(), &all[static_cast<size_t>(r)], &error))
          ++failed;
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(reader);
    reader();
    for (std::thread& thread : threads) thread.join();
    if (failed > 0) return 1;
    return aiprof::exporter::FinishCluster(std::move(all), {(dir / "out").string(), 7}, std::cout,
                                           std::cerr);
  });
  std::printf(
      "merge: %d ranks, summary of %llu events each (%zu steps, %zu ops), %s, --jobs=%u: "
      "%.2f s wall, %.2f s CPU, peak %.0f MiB\n",
      ranks, static_cast<unsigned long long>(events), parsed[0].steps.size(),
      parsed[0].communication.size(),
      stages > 0 ? (std::to_string(stages) + " stages").c_str() : "layout unknown", jobs, m.seconds,
      m.cpu_seconds, m.peak_mib);
  fs::remove_all(dir);
  return 0;
}

int Raw(int ranks, uint64_t events, unsigned jobs, const fs::path& dir, bool keep) {
  const fs::path data = dir / "data";
  if (!fs::exists(data)) {
    const auto begin = std::chrono::steady_clock::now();
    const auto truth = aiprof::testing::WriteClusterData(data.string(), Spec(ranks, events));
    std::printf("generated %d ranks x %llu events, %.1f MB, in %.1f s\n", ranks,
                static_cast<unsigned long long>(truth.events_per_rank),
                static_cast<double>(truth.raw_bytes) / 1e6,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  const Measure m = InChild([&] {
    std::vector<RankSummary> all = SummarizeAll(data.string(), jobs);
    return aiprof::exporter::FinishCluster(std::move(all), {(dir / "out").string(), 7}, std::cout,
                                           std::cerr);
  });
  std::printf("raw: %d ranks x %llu events, --jobs=%u: %.2f s wall, %.2f s CPU, peak %.0f MiB\n",
              ranks, static_cast<unsigned long long>(events), jobs, m.seconds, m.cpu_seconds,
              m.peak_mib);
  if (!keep) fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "merge") != 0 && std::strcmp(argv[1], "raw") != 0)) {
    std::fprintf(stderr,
                 "usage: %s merge|raw [--ranks=N] [--events=N] [--jobs=N] [--stages=N (merge)] "
                 "[--dir=PATH] [--keep]\n",
                 argv[0]);
    return 2;
  }
  const bool merge = std::strcmp(argv[1], "merge") == 0;
  int ranks = merge ? 1024 : 64;
  uint64_t events = 1'000'000;
  unsigned jobs = 2;
  int stages = 0;
  bool keep = false;
  fs::path dir = fs::temp_directory_path() / ("aiprof_bench_cluster_" + std::to_string(getpid()));
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--ranks=", 0) == 0) ranks = std::stoi(arg.substr(8));
    if (arg.rfind("--events=", 0) == 0) events = std::stoull(arg.substr(9));
    if (arg.rfind("--jobs=", 0) == 0) jobs = static_cast<unsigned>(std::stoul(arg.substr(7)));
    if (arg.rfind("--stages=", 0) == 0) stages = std::stoi(arg.substr(9));
    if (arg.rfind("--dir=", 0) == 0) dir = arg.substr(6);
    if (arg == "--keep") keep = true;
  }
  return merge ? Merge(ranks, events, jobs, stages, dir) : Raw(ranks, events, jobs, dir, keep);
}
