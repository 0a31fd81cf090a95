// aiprof cluster --critical-path's job-level step: the critical rank per step from the ranks'
// summaries (analysis/cluster/cluster_critical_path.h), never their traces, on synthetic
// summaries: --ranks ranks of --steps steps, each step --ops all_reduces of the world group;
// rank (ranks / 2) computes 50% more, so it arrives last and gates every step. The summaries
// are merged once (as aiprof cluster does: operations matched, wait derived); measured,
// --repeat times: ComputeClusterCriticalPath over them (CPU time of this thread); printed:
// the median and the spread, and a check that the slow rank gates every step.
//
//   bench_cluster_critical_path [--ranks=64] [--steps=100] [--ops=20] [--repeat=11]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/cluster/cluster_critical_path.h"
#include "analysis/cluster/cluster_merge.h"

namespace {

using aiprof::analysis::CategoryTimes;
using aiprof::analysis::CommOpTiming;
using aiprof::analysis::PathCategory;
using aiprof::analysis::cluster::RankStep;
using aiprof::analysis::cluster::RankSummary;

constexpr int64_t kUs = 1000;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Each step: per op, the rank computes (slow rank: 1.5×), then joins an all_reduce that ends
// 100 µs after the last arrival.
std::vector<RankSummary> Summaries(int ranks, int steps, int ops) {
  const int slow = ranks / 2;
  std::vector<RankSummary> out(static_cast<size_t>(ranks));
  int64_t t = 0;
  uint64_t sequence = 0;
  for (int step = 0; step < steps; ++step) {
    const int64_t begin = t;
    for (int op = 0; op < ops; ++op, ++sequence) {
      const int64_t compute = 1000 * kUs;
      const int64_t last_arrival = t + compute * 3 / 2;
      const int64_t end = last_arrival + 100 * kUs;
      for (int r = 0; r < ranks; ++r) {
        const int64_t arrival = t + (r == slow ? compute * 3 / 2 : compute + r * kUs);
        CommOpTiming c;
        c.rank = r;
        c.name = "gloo_allreduce_" + std::to_string(sequence);
        c.group = "world";
        c.type = aiprof::model::CommOpType::kAllReduce;
        c.sequence = sequence;
        c.step = step;
        c.time.start_ns = arrival;
        c.end_ns = end;
        c.time.elapse_ns = end - arrival;
        out[static_cast<size_t>(r)].communication.push_back(c);
      }
      t = end;
    }
    for (int r = 0; r < ranks; ++r) {
      RankSummary& s = out[static_cast<size_t>(r)];
      s.rank = r;
      s.world_size = ranks;
      s.host = "node" + std::to_string(r / 8);
      RankStep row;
      row.step = step;
      row.begin_ns = row.path_begin_ns = begin;
      row.end_ns = row.path_end_ns = t;
      row.has_path = true;
      const int64_t compute = ops * (r == slow ? 1500 : 1000 + r) * kUs;
      row.path[PathCategory::kCompute] = compute;
      row.path[PathCategory::kCommTransit] = (t - begin) - compute;
      row.computing_ns = compute;
      s.steps.push_back(row);
    }
  }
  return out;
}

int ArgOr(int argc, char** argv, const char* name, int fallback) {
  const size_t length = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, length) == 0 && argv[i][length] == '=') {
      return std::atoi(argv[i] + length + 1);
    }
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = ArgOr(argc, argv, "--ranks", 64);
  const int steps = ArgOr(argc, argv, "--steps", 100);
  const int ops = ArgOr(argc, argv, "--ops", 20);
  const int repeat = std::max(1, ArgOr(argc, argv, "--repeat", 11));
  std::vector<RankSummary> summaries = Summaries(ranks, steps, ops);
  const auto result = aiprof::analysis::cluster::MergeRankSummaries(summaries);
  std::vector<double> seconds;
  size_t gated_by_slow = 0, critical_steps = 0;
  for (int i = 0; i < repeat; ++i) {
    const double begin = ThreadCpuSeconds();
    const auto critical =
        aiprof::analysis::cluster::ComputeClusterCriticalPath(summaries, result.comm_ops);
    seconds.push_back(ThreadCpuSeconds() - begin);
    critical_steps = critical.size();
    gated_by_slow =
        static_cast<size_t>(std::count_if(critical.begin(), critical.end(), [&](const auto& s) {
          return s.critical_rank == ranks / 2;
        }));
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf(
      "cluster critical path: %d ranks, %d steps, %d all_reduces a step (%zu operations): "
      "median %.4f s CPU (min %.4f, max %.4f, %d runs); rank %d gates %zu of %zu steps\n",
      ranks, steps, ops, result.comm_ops.size(), seconds[seconds.size() / 2], seconds.front(),
      seconds.back(), repeat, ranks / 2, gated_by_slow, critical_steps);
  return gated_by_slow == critical_steps && critical_steps == static_cast<size_t>(steps) ? 0 : 1;
}
