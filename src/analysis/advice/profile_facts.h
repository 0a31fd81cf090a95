// What the advice rules read from the model beyond the analysis results: per-operator self
// time (dominant operators, fusion candidates), host synchronisation calls, and the launch
// shape of device kernels (blocks per SM, estimated and theoretical occupancy). Collected once per
// profile in one pass over the slices, next to RunAnalyses; the rules' unit tests build it by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/communication.h"
#include "model/model.h"

namespace aiprof::analysis::advice {

struct OperatorTime {
  std::string name;
  uint64_t count = 0;
  int64_t self_ns = 0;  // duration minus that of nested operators
  double mean_ns = 0;   // mean duration (not self)
};

// One blocking call. The time the host blocks costs nothing while the device is busy
// draining its queue; what it costs is the device's idle time after it returns, until the
// host has launched new work (the queue refills): `device_idle_after_ns`, 0 when the device
// was still busy at the call's end, kNoLaterDeviceWork when nothing ran on it afterwards
// (the rule bounds that by the end of the steps).
constexpr int64_t kNoLaterDeviceWork = INT64_MAX;
struct SyncWait {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t device_idle_after_ns = 0;
};

struct SyncCall {
  std::string name;  // "cudaDeviceSynchronize", "aten::item", ...
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  std::vector<SyncWait> waits;  // each call, by start time
};

// One device kernel name; the launch-shape fields are -1 (or empty) where its records carry
// no such argument (a trace without them, or a device without its SM count).
struct KernelShape {
  std::string name;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double blocks_per_sm = -1;  // duration-weighted mean; -1: not recorded
  double occupancy_pct = -1;  // duration-weighted mean est. achieved occupancy; -1: not recorded
  // Duration-weighted mean of the most warps its registers, shared memory and block size let
  // an SM hold (CUPTI's occupancy calculator); -1: not recorded.
  double theoretical_occupancy_pct = -1;
  // What caps the theoretical occupancy ("REGS", "SMEM", "WARPS", "BLOCKS"), the one holding
  // the most of the kernel's time; empty: not recorded.
  std::string occupancy_limit;
};

struct CollectiveTime {
  std::string name;  // "allreduce (gloo)"
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t bytes = 0;  // Σ message sizes where known
};

struct ProfileFacts {
  bool device_operators = false;        // operators are device tasks (else framework ops)
  std::vector<OperatorTime> operators;  // largest self time first
  int64_t operator_self_ns = 0;         // Σ self time of every operator
  uint64_t operator_count = 0;
  bool has_runtime_calls = false;           // CUDA runtime/driver calls were recorded
  bool has_device_activity = false;         // kernels, copies or sets were recorded
  std::vector<SyncCall> sync_calls;         // largest total first
  std::vector<KernelShape> kernels;         // every kernel name, largest total first
  int64_t kernel_total_ns = 0;              // Σ duration of every device kernel
  std::vector<CollectiveTime> collectives;  // per operation type and backend, largest first
};

// Names that block the host until the device is done: the CUDA synchronisation calls, and
// the framework operators that copy a device scalar to the host (`.item()`).
bool IsHostSyncName(std::string_view name);

// `communication`: the operations classified once for the profile's AnalysisSet.
ProfileFacts CollectProfileFacts(const model::Model& model,
                                 const std::vector<model::CommOp>& communication);

}  // namespace aiprof::analysis::advice
