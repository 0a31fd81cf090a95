// Memory analysis over the memory records in the model:
//   - framework allocator events: the torch source's "[memory]" instants (args Bytes, Addr,
//     Total Allocated, Total Reserved, Device Type, Device Id), one pool per device
//     ("CPU", "CUDA:0");
//   - the CUDA source's "Device Memory Allocated" counter (CUPTI memory records), pool
//     "GPU n allocated (CUPTI)";
//   - NVML's "GPU Memory Used" counter, pool "GPU n used (NVML)" (device-wide, every process);
//   - device copies and sets (gpu_memcpy / gpu_memset slices with their "bytes");
//   - each pool's capacity: the device's recorded memory (model::DeviceProperties), the
//     host's MemTotal for the CPU pool (its counter, else model::HostProperties).
// Results: per pool the peak (allocated, reserved) and per step the peak, the values at the
// step's bounds and the allocations/frees inside it; per framework operator its self and
// inclusive memory, as torch.profiler's CPU Mem / Self CPU Mem / CUDA Mem / Self CUDA Mem
// (memory_attribution.h); each allocator block with the operator that allocated it; the
// top operators by allocated bytes (the innermost framework operator around the
// allocation, step ranges passed over; an aten::empty* allocation is named
// "<parent> (<op>)" as TensorBoard's memory view does); a memory-by-category timeline as
// torch's memory timeline draws it; copy/set traffic per kind (HTA's subtypes).
// These are the only memory figures: the timeline's operator arguments, operator_memory.csv,
// the analysis files and the Python API's key_averages()/events() read them.
//
// Categories. torch's memory timeline follows tensor ids through the autograd graph; the
// allocator events here carry no tensor ids, so the category is read from where and for how
// long a block lived (first rule that holds):
//   Parameter, Gradient, Optimizer state
//                   still allocated at the end, at an address the program recorded as a
//                   parameter's, a gradient's or optimizer state's storage when its window
//                   stopped (the Python API; model/recorded_metadata.h: TensorRoleAt)
//   Input           allocated inside an input-wait range (analysis/input_wait.h)
//   Temporary       freed before the innermost operator around its allocation ended
//   Optimizer state allocated inside an optimizer range and alive after it
//   Gradient        allocated inside a backward range and alive after it
//   Autograd        allocated inside a backward range and freed within it
//   Activation      allocated inside a forward range, or inside another operator (outside
//                   backward and optimizer ranges: the forward pass, named or not) and
//                   freed inside a backward range
//   Temporary       allocated inside such an operator and freed elsewhere
//   Parameter       allocated outside every step and never freed
//   Unknown         the rest
// Ranges are matched by name (case-insensitive "optimizer", "backward"/"autograd::engine",
// "forward") on the allocating thread (on the freeing thread for the rule above).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/memory_attribution.h"
#include "analysis/memory_transfers.h"
#include "analysis/result_columns.h"
#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class MemoryCategory : uint8_t {
  kParameter,
  kOptimizerState,
  kInput,
  kTemporary,
  kActivation,
  kGradient,
  kAutograd,
  kUnknown,
};
inline constexpr int kMemoryCategories = 8;
std::string_view MemoryCategoryName(MemoryCategory category);  // torch's names

enum class MemoryPoolSource : uint8_t { kFrameworkAllocator, kCuptiAllocations, kNvmlUsed };
std::string_view MemoryPoolSourceName(MemoryPoolSource source);

struct MemorySample {
  int64_t ts = 0;
  int64_t allocated = 0;
  int64_t reserved = -1;  // -1: the pool's source does not report it
};

struct MemoryPool {
  std::string name;           // "CUDA:0", "CPU", "GPU 0 allocated (CUPTI)", "GPU 0 used (NVML)"
  uint32_t process = 0;       // ProcessTable row owning the records
  int32_t device_index = -1;  // the device the pool is on; -1: host memory
  MemoryPoolSource source = MemoryPoolSource::kFrameworkAllocator;
  std::vector<MemorySample> samples;  // by time
  int64_t peak_allocated = 0;
  int64_t peak_allocated_ts = 0;
  int64_t peak_reserved = -1;
  // What the pool can reach at most, as recorded: a device pool's device memory (the CUDA
  // source's device record, Kineto's totalGlobalMem), the CPU pool's host MemTotal (the host
  // source's meminfo samples or the runtime's metadata); 0 when not recorded.
  int64_t capacity = 0;
  std::string capacity_source;  // "CUDA device record", "host MemTotal"
};

// The columns of memory_analysis.csv, MEMORY_POOL and /api/memory's pools; the writers put
// the pool's device or process after the first column (the files: Device_id), after the
// first two (the table: deviceId, globalPid) or first (the UI: process, pid, role), as the
// published layouts have them (export/analysis/resource_analysis_files.cc,
// export/sqlite/resource_analysis_tables.cc, server/analysis_api.cc).
inline constexpr Column<MemoryPool> kMemoryPoolColumns[] = {
    TextColumn<MemoryPool>("Pool", "name", "", kEveryWriter,
                           [](const MemoryPool& p) { return p.name; }),
    TextColumn<MemoryPool>(
        "Source", "source", "", kEveryWriter,
        [](const MemoryPool& p) { return std::string(MemoryPoolSourceName(p.source)); }),
    {"Samples", "samples", "", ColumnUnit::kCount, kFiles,
     [](const MemoryPool& p) { return static_cast<int64_t>(p.samples.size()); }},
    {"Peak Allocated(B)", "peak_allocated", "peakAllocated", ColumnUnit::kBytes, kEveryWriter,
     [](const MemoryPool& p) { return p.peak_allocated; }},
    {"Peak Allocated Time(us)", "peak_allocated_ts", "peakAllocatedNs", ColumnUnit::kTimestamp,
     kEveryWriter, [](const MemoryPool& p) { return p.peak_allocated_ts; }},
    {"Peak Reserved(B)", "peak_reserved", "peakReserved", ColumnUnit::kBytes, kEveryWriter,
     [](const MemoryPool& p) { return p.peak_reserved; }, /*null_when_negative=*/true},
    {"Capacity(B)", "capacity", "", ColumnUnit::kBytes, kUi,
     [](const MemoryPool& p) { return p.capacity; }},
};
inline constexpr size_t kMemoryPoolFileNameColumns = 1;   // before the files' Device_id
inline constexpr size_t kMemoryPoolTableNameColumns = 2;  // before the table's deviceId

struct MemoryStepRow {
  uint32_t step_id = 0;  // model::StepTable row
  uint64_t step = 0;     // the user's number
  uint32_t loop = 0;     // loop ordinal (model/steps.h)
  uint32_t pool = 0;     // index into MemoryAnalysis::pools
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t allocated_at_begin = 0;
  int64_t allocated_at_end = 0;
  int64_t peak_allocated = 0;
  int64_t peak_reserved = -1;
  uint64_t allocations = 0;  // allocator events inside the step (framework pools)
  uint64_t frees = 0;
  int64_t allocated_bytes = 0;
  int64_t freed_bytes = 0;
};

// The memory_steps / MEMORY_STEP columns after the step and the pool (export/analysis/
// resource_analysis_files.cc, export/sqlite/resource_analysis_tables.cc).
inline constexpr Column<MemoryStepRow> kMemoryStepColumns[] = {
    {"Allocated at Begin(B)", "allocated_at_begin", "allocatedAtBegin", ColumnUnit::kBytes,
     kFiles | kDatabase, [](const MemoryStepRow& s) { return s.allocated_at_begin; }},
    {"Allocated at End(B)", "allocated_at_end", "allocatedAtEnd", ColumnUnit::kBytes,
     kFiles | kDatabase, [](const MemoryStepRow& s) { return s.allocated_at_end; }},
    {"Peak Allocated(B)", "peak_allocated", "peakAllocated", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return s.peak_allocated; }},
    {"Peak Reserved(B)", "peak_reserved", "peakReserved", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return s.peak_reserved; }, /*null_when_negative=*/true},
    {"Allocations", "allocations", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return static_cast<int64_t>(s.allocations); }},
    {"Allocated(B)", "allocated_bytes", "allocatedBytes", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return s.allocated_bytes; }},
    {"Frees", "frees", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return static_cast<int64_t>(s.frees); }},
    {"Freed(B)", "freed_bytes", "freedBytes", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryStepRow& s) { return s.freed_bytes; }},
};

// One allocator block of a framework pool: its allocation paired with its free by pool and
// address.
struct MemoryBlock {
  uint32_t pool = 0;
  uint32_t allocation = model::kNoRow;  // InstantTable row of the allocation event
  uint32_t release = model::kNoRow;     // of the free; kNoRow: still allocated at the end
  uint32_t op = model::kNoRow;          // innermost framework operator at the allocation
  int64_t bytes = 0;
  MemoryCategory category = MemoryCategory::kUnknown;
};

struct OperatorMemoryRow {
  std::string name;
  uint32_t pool = 0;
  uint64_t allocations = 0;
  int64_t allocated_bytes = 0;
  int64_t max_allocation = 0;
  int64_t freed_bytes = 0;  // of the blocks it allocated, freed within the data
};

// The columns of operator_memory_top.csv, OPERATOR_MEMORY_TOP and /api/memory's
// top_operators. The table and the UI hold the pool's index (MemoryAnalysis::pools); the
// files put the pool's name in its place, after the first column
// (export/analysis/resource_analysis_files.cc).
inline constexpr Column<OperatorMemoryRow> kOperatorMemoryColumns[] = {
    TextColumn<OperatorMemoryRow>("Name", "name", "", kEveryWriter,
                                  [](const OperatorMemoryRow& op) { return op.name; }),
    {"", "pool", "poolId", ColumnUnit::kCount, kDatabase | kUi,
     [](const OperatorMemoryRow& op) -> int64_t { return op.pool; }},
    {"Allocations", "allocations", "", ColumnUnit::kCount, kEveryWriter,
     [](const OperatorMemoryRow& op) { return static_cast<int64_t>(op.allocations); }},
    {"Allocated(B)", "allocated_bytes", "allocatedBytes", ColumnUnit::kBytes, kEveryWriter,
     [](const OperatorMemoryRow& op) { return op.allocated_bytes; }},
    {"Max Allocation(B)", "max_allocation", "maxAllocation", ColumnUnit::kBytes, kEveryWriter,
     [](const OperatorMemoryRow& op) { return op.max_allocation; }},
    {"Freed(B)", "freed_bytes", "freedBytes", ColumnUnit::kBytes, kEveryWriter,
     [](const OperatorMemoryRow& op) { return op.freed_bytes; }},
};
inline constexpr size_t kOperatorMemoryFileNameColumns = 1;  // before the files' pool name

// Live bytes of one category in one pool, as change points (value holds until the next).
struct MemoryCategoryTrack {
  uint32_t pool = 0;
  MemoryCategory category = MemoryCategory::kUnknown;
  std::vector<std::pair<int64_t, int64_t>> points;  // (ts, bytes)
  int64_t peak = 0;
};

// One change point of a category track, as memory_category_timeline.csv and MEMORY_CATEGORY
// hold them (one row per point); /api/memory sends each track's UI columns once, with its
// points downsampled (the UI reads a point of no time: {&track}). The files put the pool's
// name first, where the table holds its index.
struct MemoryCategoryPoint {
  const MemoryCategoryTrack* track = nullptr;
  int64_t ts = 0;
  int64_t bytes = 0;
};
inline constexpr Column<MemoryCategoryPoint> kMemoryCategoryColumns[] = {
    {"", "pool", "poolId", ColumnUnit::kCount, kDatabase | kUi,
     [](const MemoryCategoryPoint& p) -> int64_t { return p.track->pool; }},
    TextColumn<MemoryCategoryPoint>("Category", "category", "", kEveryWriter,
                                    [](const MemoryCategoryPoint& p) {
                                      return std::string(MemoryCategoryName(p.track->category));
                                    }),
    {"", "peak", "", ColumnUnit::kBytes, kUi,
     [](const MemoryCategoryPoint& p) { return p.track->peak; }},
    {"Time(us)", "ts", "timestampNs", ColumnUnit::kTimestamp, kFiles | kDatabase,
     [](const MemoryCategoryPoint& p) { return p.ts; }},
    {"Bytes", "bytes", "", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryCategoryPoint& p) { return p.bytes; }},
};

struct MemoryAnalysisOptions {
  uint32_t top_operators = 20;
};

struct MemoryAnalysis {
  // "framework allocator events", "CUPTI allocations", "NVML used memory", "device copies".
  std::vector<std::string> inputs;
  std::vector<MemoryPool> pools;
  std::vector<MemoryStepRow> steps;                  // by step, then pool
  std::vector<OperatorMemoryRow> top_operators;      // largest allocated bytes first
  std::vector<MemoryCategoryTrack> category_tracks;  // framework pools, categories seen
  std::vector<MemoryTransferRow> transfers;          // whole run first, then per step
  // Per framework operator with allocator events inside it (ascending slice row).
  std::vector<OperatorMemoryUsage> operator_usage;
  std::vector<MemoryBlock> blocks;  // by pool, then allocation time
  // Allocator events ("[memory]" instants) outside every framework operator of their
  // thread, ascending: torch.profiler lists each as a "[memory]" event of its own.
  std::vector<uint32_t> events_outside_operators;

  // The figures of the operator at SliceTable row `slice`; null when it saw no events.
  const OperatorMemoryUsage* UsageOf(uint32_t slice) const;
};

// `steps`: the steps found once for every analysis (analysis/steps.h).
MemoryAnalysis ComputeMemoryAnalysis(const model::Model& model, const StepList& steps,
                                     const MemoryAnalysisOptions& options = {});

}  // namespace aiprof::analysis
