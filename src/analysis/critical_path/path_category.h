// What the time on a critical path is spent on. Every nanosecond of a step's path falls in
// exactly one category, so a step's attribution sums to the step time.
//   compute               what the overlap analysis counts as Computing: device kernels,
//                         copies and sets on CUDA runs; framework operators (or, in a
//                         process without them, marker ranges) on CPU-only runs
//   communication transit a collective or send/recv once every peer had arrived
//   communication wait    a collective or send/recv waiting for a peer that had not arrived
//                         (in a rank's own view; the job's path goes to that peer instead)
//   host overhead         host work that is not compute: framework operators and runtime
//                         calls of CUDA runs, user annotations, launch latency (call →
//                         kernel start), kernel-to-kernel delays
//   synchronisation       host calls that wait for the device (stream/device/event sync,
//                         blocking copies) and the return from such a wait
//   data loading          input-wait ranges and everything inside them, DataLoader workers
//                         and loader threads, the hand-off of a batch
//   idle                  nothing recorded: gaps between a thread's events, a device stream
//                         with nothing to run
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace aiprof::analysis {

enum class PathCategory : uint8_t {
  kCompute = 0,
  kCommTransit = 1,
  kCommWait = 2,
  kHostOverhead = 3,
  kSync = 4,
  kDataLoading = 5,
  kIdle = 6,
};
inline constexpr int kPathCategoryCount = 7;

// "compute", "communication transit", "communication wait", "host overhead",
// "synchronisation", "data loading", "idle".
std::string_view PathCategoryName(PathCategory category);
// Column stems: "compute", "comm_transit", "comm_wait", "host_overhead", "sync",
// "data_loading", "idle" (CSV columns "<stem>_us", SQLite "<stem>Ns", the UI's keys).
std::string_view PathCategoryKey(PathCategory category);

struct CategoryTimes {
  std::array<int64_t, kPathCategoryCount> ns{};

  int64_t& operator[](PathCategory category) { return ns[static_cast<size_t>(category)]; }
  int64_t operator[](PathCategory category) const { return ns[static_cast<size_t>(category)]; }
  int64_t total() const {
    int64_t sum = 0;
    for (int64_t value : ns) sum += value;
    return sum;
  }
  void Add(const CategoryTimes& other) {
    for (size_t i = 0; i < ns.size(); ++i) ns[i] += other.ns[i];
  }
  // The category with the most time (ties: the first).
  PathCategory Largest() const;
};

}  // namespace aiprof::analysis
