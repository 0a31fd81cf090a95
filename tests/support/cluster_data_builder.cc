#include "support/cluster_data_builder.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/raw_data_builder.h"

namespace aiprof::testing {

namespace fs = std::filesystem;

namespace {

constexpr double kTicksPerNs = 3.0;
constexpr int64_t kRealtimeBase = 1'700'000'000'000'000'000;
constexpr int64_t kMonotonicBase = 1'000'000'000'000;
constexpr int64_t kOpPeriodNs = 600;
constexpr int64_t kPreparingNs = 1'000;
constexpr uint32_t kTid = 100;

int64_t OpDuration(int rank, uint32_t op) {
  return 400 + ((rank * 7 + op) % 5) * 20;
}

}  // namespace

ClusterDataTruth WriteClusterData(const std::string& dir, const ClusterDataSpec& spec) {
  ClusterDataTruth truth;
  truth.computing_ns.assign(spec.ranks, std::vector<int64_t>(spec.steps, 0));
  truth.allreduce_elapse_ns = truth.computing_ns;
  truth.allreduce_wait_ns = truth.computing_ns;
  truth.events_per_rank = ClusterEventsPerStep(spec.ops_per_step) * spec.steps;
  const int per_host = std::max(1, (spec.ranks + spec.hosts - 1) / spec.hosts);

  // The shared timeline first: every rank's compute end per step decides the allreduce.
  std::vector<int64_t> step_begin(spec.steps), allreduce_end(spec.steps);
  std::vector<std::vector<int64_t>> compute_end(spec.ranks, std::vector<int64_t>(spec.steps));
  int64_t t = 0;
  for (int s = 0; s < spec.steps; ++s) {
    step_begin[s] = t;
    int64_t last_arrival = 0;
    for (int r = 0; r < spec.ranks; ++r) {
      int64_t end = t + kPreparingNs + static_cast<int64_t>(spec.ops_per_step) * kOpPeriodNs;
      int64_t computing = 0;
      for (uint32_t i = 0; i < spec.ops_per_step; ++i) computing += OpDuration(r, i);
      if (r == spec.slow_rank) {
        computing += spec.slow_extra_ns;
        end += spec.slow_extra_ns + 100;
      }
      truth.computing_ns[r][s] = computing;
      compute_end[r][s] = end;
      last_arrival = std::max(last_arrival, end + 100);
    }
    allreduce_end[s] = last_arrival + spec.transit_ns;
    for (int r = 0; r < spec.ranks; ++r) {
      const int64_t start = compute_end[r][s] + 100;
      truth.allreduce_elapse_ns[r][s] = allreduce_end[s] - start;
      truth.allreduce_wait_ns[r][s] = last_arrival - start;
    }
    t = allreduce_end[s] + 1'000;
  }

  for (int r = 0; r < spec.ranks; ++r) {
    const int host = r / per_host;
    const std::string hostname = "node" + std::to_string(host);
    const int64_t offset = host * spec.host_clock_offset_ns;
    char name[64];
    std::snprintf(name, sizeof name, "PROF_%06d_20260101000000000_RANK%012d", r + 1, r);
    const fs::path prof = fs::path(dir) / name;
    fs::create_directories(prof / "host" / "data");
    const uint32_t pid = 1000 + static_cast<uint32_t>(r);
    nlohmann::json metadata =
        nlohmann::json::parse(MetadataJson(pid, hostname, true, 3e9, r, kRealtimeBase + offset, 0));
    metadata["world_size"] = spec.ranks;
    metadata["local_rank"] = r % per_host;
    metadata["local_world_size"] = per_host;
    const std::string file = "aiprof." + std::to_string(pid) + ".data";
    RawProcessWriter w((prof / "host" / "data" / file).string(), pid, metadata.dump(),
                       spec.compress);
    auto ticks = [](int64_t ns) {
      return static_cast<uint64_t>((kMonotonicBase + ns) * kTicksPerNs);
    };
    auto clock = [&](int64_t ns) {
      w.ClockSync(ticks(ns), kMonotonicBase + ns, kRealtimeBase + offset + ns);
    };
    clock(0);
    for (int s = 0; s < spec.steps; ++s) {
      const int64_t begin = step_begin[s];
      w.StepBegin(kTid, ticks(begin), static_cast<uint32_t>(s + 1));
      int64_t op_start = begin + kPreparingNs;
      for (uint32_t i = 0; i < spec.ops_per_step; ++i, op_start += kOpPeriodNs) {
        w.Push(kTid, ticks(op_start), i % 2 ? "aten::mm" : "aten::add");
        w.Pop(kTid, ticks(op_start + OpDuration(r, i)));
      }
      if (r == spec.slow_rank) {
        w.Push(kTid, ticks(op_start), "aten::matmul");
        w.Pop(kTid, ticks(op_start + spec.slow_extra_ns));
      }
      const int64_t start = compute_end[r][s] + 100;
      w.Push(kTid, ticks(start), "gloo:all_reduce");
      w.Pop(kTid, ticks(allreduce_end[s]));
      w.StepEnd(kTid, ticks(allreduce_end[s] + 200), static_cast<uint32_t>(s + 1));
      if (s % 4 == 3) {
        clock(allreduce_end[s] + 300);
        w.Flush();
      }
    }
    clock(t);
    w.Close();
    metadata["data_files"] = {"host/data/" + file};
    std::ofstream(prof / "info.json") << metadata.dump(2) << "\n";
    truth.raw_bytes += w.bytes_written();
  }
  return truth;
}

}  // namespace aiprof::testing
