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
// (ranges named like a step, see steps.h). Ranges that wait for input (input_wait.h) are
// never compute.
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

// What each slice counts as for Computing (the rules above): the one classification the
// overlap unions and the critical path's categories (critical_path/) read.
enum ComputeSliceKind : uint8_t {
  kComputeOther = 0,
  kComputeDeviceTask = 1,
  kComputeFrameworkOp = 2,
  kComputeMarkerRange = 3,
};
struct ComputeClassification {
  std::vector<uint8_t> kind;  // ComputeSliceKind per slice
  bool device_run = false;    // device tasks exist: Computing is the devices' tasks
};
ComputeClassification ClassifyComputeSlices(const model::Model& model,
                                            const std::vector<model::CommOp>& comm);

OverlapResult ComputeOverlap(const model::Model& model, const std::vector<model::CommOp>& comm);

// Yields every interval of the four lanes of `scope`: all of Computing, then Communication,
// then Communication(Not Overlapped), then Free, each in time order. Linear in the size of
// the two unions; holds only a few indexes, so exporters can pull rows one at a time.
class LaneCursor {
 public:
  explicit LaneCursor(const OverlapScope& scope) : scope_(scope), covered_(scope.first_ns) {}
  bool Next(OverlapLane* lane, Interval* interval);

 private:
  bool NextNotOverlapped(Interval* interval);
  bool NextFree(Interval* interval);

  const OverlapScope& scope_;
  OverlapLane lane_ = OverlapLane::kComputing;
  size_t index_ = 0;  // Computing/Communication: next interval; Not Overlapped: communication
  // Communication(Not Overlapped): the first computing interval that may still overlap,
  // the one being looked at, and how far the current communication interval is done.
  size_t first_ = 0, k_ = 0;
  int64_t at_ = 0;
  bool inside_ = false;
  // Free: next computing / communication interval, and the end of what they cover so far.
  size_t a_ = 0, b_ = 0;
  int64_t covered_ = 0;
};

// Calls visit(OverlapLane, Interval) for every interval LaneCursor yields.
template <typename Visit>
void ForEachLaneInterval(const OverlapScope& scope, Visit&& visit) {
  LaneCursor cursor(scope);
  OverlapLane lane;
  Interval interval;
  while (cursor.Next(&lane, &interval)) visit(lane, interval);
}

}  // namespace aiprof::analysis
