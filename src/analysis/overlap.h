// Overlap analysis (msprof/torch_npu "Overlap Analysis", MindInsight "Op Overlap Analyse"):
// per scope — a device on CUDA runs, a host process on CPU-only runs —
//   Computing                      = ∪ compute tasks
//   Communication                  = ∪ communication operations
//   Communication(Not Overlapped)  = Communication − Computing
//   Free                           = [first task start, last task end] − (Computing ∪
//   Communication)
// Compute tasks: on a CUDA run the device's kernels, memcpys and memsets (NCCL kernels are
// communication, not compute); on a CPU-only run the process's framework operators
// (cpu_op), or, in a process without any, its marker ranges (mstx/NVTX) other than steps
// (ranges named like a step, see steps.h).
// Communication: the operations src/model/communication classifies, on that scope.
// The two unions are built once (sort + merge, O(n log n)); the derived lanes are produced
// on demand by one linear sweep, so the result costs 16 bytes per merged interval only.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/intervals.h"
#include "model/communication.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class ComputeInput : uint8_t { kNone, kDeviceTasks, kFrameworkOps, kMarkerRanges };
// "device kernels/memcpy/memset", "framework operators (cpu_op)", "marker ranges", "none".
std::string_view ComputeInputName(ComputeInput input);

// Lane ids are msprof's ENUM_OVERLAP_ANALYSIS_TYPE values; the timeline uses them as tids.
enum class OverlapLane : uint8_t {
  kComputing = 0,
  kCommunication = 1,
  kCommunicationNotOverlapped = 2,
  kFree = 3,
};
inline constexpr int kOverlapLaneCount = 4;
// "Computing", "Communication", "Communication(Not Overlapped)", "Free".
std::string_view OverlapLaneName(OverlapLane lane);

struct OverlapScope {
  uint32_t process = model::kNoRow;  // ProcessTable row (device or host process)
  int32_t device_id = -1;            // -1: a host process
  int32_t rank = -1;
  ComputeInput compute_input = ComputeInput::kNone;
  uint64_t compute_tasks = 0;           // slices that made up Computing
  uint64_t communication_ops = 0;       // operations that made up Communication
  std::vector<Interval> computing;      // merged
  std::vector<Interval> communication;  // merged
  std::vector<Interval> receive;        // receive operations, by begin, not merged (Bubble)
  int64_t first_ns = 0;                 // first task start (compute or communication)
  int64_t last_ns = 0;                  // last task end
  bool empty() const { return computing.empty() && communication.empty(); }
};

struct OverlapResult {
  bool device_run = false;  // true: scopes are devices; false: host processes (CPU-only run)
  std::vector<OverlapScope> scopes;  // by process row
};

OverlapResult ComputeOverlap(const model::Model& model, const std::vector<model::CommOp>& comm);

// Calls visit(OverlapLane, Interval) for every interval of the four lanes of `scope`; each
// lane's intervals come in time order. Linear in the size of the two unions.
template <typename Visit>
void ForEachLaneInterval(const OverlapScope& scope, Visit&& visit) {
  const std::vector<Interval>& compute = scope.computing;
  const std::vector<Interval>& comm = scope.communication;
  for (const Interval& i : compute) visit(OverlapLane::kComputing, i);
  for (const Interval& i : comm) visit(OverlapLane::kCommunication, i);
  // Communication − Computing. `first` only moves forward: a computing interval that
  // reaches past a communication interval is looked at again for the next one.
  size_t first = 0;
  for (const Interval& c : comm) {
    while (first < compute.size() && compute[first].end <= c.begin) ++first;
    int64_t at = c.begin;
    for (size_t k = first; at < c.end; ++k) {
      if (k == compute.size() || compute[k].begin >= c.end) {
        visit(OverlapLane::kCommunicationNotOverlapped, Interval{at, c.end});
        break;
      }
      if (compute[k].begin > at) {
        visit(OverlapLane::kCommunicationNotOverlapped, Interval{at, compute[k].begin});
      }
      at = compute[k].end;
    }
  }
  // Free: the gaps of Computing ∪ Communication, walking both lists in begin order.
  size_t a = 0, b = 0;
  int64_t covered = scope.first_ns;
  while (a < compute.size() || b < comm.size()) {
    bool take_compute =
        b == comm.size() || (a < compute.size() && compute[a].begin <= comm[b].begin);
    const Interval& next = take_compute ? compute[a++] : comm[b++];
    if (next.begin > covered) visit(OverlapLane::kFree, Interval{covered, next.begin});
    if (next.end > covered) covered = next.end;
  }
}

}  // namespace aiprof::analysis
