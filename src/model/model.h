// The in-memory model every exporter and analysis reads: columnar (struct-of-arrays)
// tables with string ids. Times are ns since the Unix epoch once the parser has finished
// (importers write process clock ticks; the parser converts them, see clock.h).
//
// Rows refer to each other by index: a slice names its track, a track its thread, a
// thread its process. Device data fits the same shape: a process per device, a thread per
// stream, kernels as slices with category "kernel", launch→kernel links as flows.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/reader.h"
#include "model/cpu_profile.h"
#include "model/steps.h"
#include "model/string_pool.h"

namespace aiprof::model {

inline constexpr uint32_t kNoRow = UINT32_MAX;

struct ProcessTable {
  std::vector<uint32_t> pid;    // OS pid; for a device process the device id
  std::vector<StringId> host;   // hostname
  std::vector<StringId> name;   // process_name shown in timelines
  std::vector<StringId> label;  // process_labels: "CPU", "GPU 0"
  std::vector<int64_t> sort_index;
  std::vector<int32_t> device_id;     // -1 for host processes
  std::vector<int32_t> rank;          // -1 when unknown
  std::vector<std::string> metadata;  // the raw file's Metadata JSON (host processes)
  size_t size() const { return pid.size(); }
};

struct ThreadTable {
  std::vector<uint32_t> process;  // ProcessTable row
  std::vector<uint32_t> tid;      // OS tid; for a device thread the stream id
  std::vector<StringId> name;
  std::vector<int64_t> sort_index;
  size_t size() const { return tid.size(); }
};

// A track is one lane of a thread. Slices on one track nest properly; a slice that
// partially overlaps another is moved to an extra lane (lane > 0) rather than broken.
struct TrackTable {
  std::vector<uint32_t> thread;  // ThreadTable row
  std::vector<uint32_t> lane;    // 0 = the thread's own track
  size_t size() const { return thread.size(); }
};

enum class ArgType : uint8_t { kInt, kUInt, kDouble, kString, kJson };

// Key/value arguments of slices and instants. An event's args are one contiguous run,
// found through ArgTable::set_begin[set] .. set_begin[set + 1]. Set 0 is the empty set.
struct ArgTable {
  std::vector<StringId> key;
  std::vector<ArgType> type;
  std::vector<uint64_t> value;  // int64/uint64/double bits, or a StringId (kString, kJson)
  std::vector<uint32_t> set_begin{0, 0};
  size_t sets() const { return set_begin.size() - 1; }

  // The one lookup of an argument by key: keys are interned, so a key is one StringId (a
  // key text never interned is StringPool::kMissing and found nowhere). Set 0, a set out of
  // range and a missing key all give kNotFound / nullopt.
  static constexpr uint32_t kNotFound = UINT32_MAX;
  uint32_t Find(uint32_t set, StringId key) const {
    if (set == 0 || set >= sets()) return kNotFound;
    for (uint32_t i = set_begin[set]; i < set_begin[set + 1]; ++i) {
      if (this->key[i] == key) return i;
    }
    return kNotFound;
  }
  // The value's bits whatever its type (the caller knows it).
  std::optional<uint64_t> Bits(uint32_t set, StringId key) const {
    const uint32_t i = Find(set, key);
    if (i == kNotFound) return std::nullopt;
    return value[i];
  }
  // An integer, or a double truncated toward zero; nullopt for a string.
  std::optional<int64_t> Int(uint32_t set, StringId key) const {
    const uint32_t i = Find(set, key);
    if (i == kNotFound) return std::nullopt;
    switch (type[i]) {
      case ArgType::kInt:
      case ArgType::kUInt:
        return static_cast<int64_t>(value[i]);
      case ArgType::kDouble:
        return static_cast<int64_t>(std::bit_cast<double>(value[i]));
      default:
        return std::nullopt;
    }
  }
  // A number of any numeric type as a double; nullopt for a string.
  std::optional<double> Number(uint32_t set, StringId key) const {
    const uint32_t i = Find(set, key);
    if (i == kNotFound) return std::nullopt;
    switch (type[i]) {
      case ArgType::kInt:
        return static_cast<double>(static_cast<int64_t>(value[i]));
      case ArgType::kUInt:
        return static_cast<double>(value[i]);
      case ArgType::kDouble:
        return std::bit_cast<double>(value[i]);
      default:
        return std::nullopt;
    }
  }
  // The text of a string or JSON argument (as its StringId); nullopt for a number.
  std::optional<StringId> Text(uint32_t set, StringId key) const {
    const uint32_t i = Find(set, key);
    if (i == kNotFound || (type[i] != ArgType::kString && type[i] != ArgType::kJson)) {
      return std::nullopt;
    }
    return static_cast<StringId>(value[i]);
  }
  // Only when the argument has exactly `wanted` type.
  std::optional<StringId> TextOfType(uint32_t set, StringId key, ArgType wanted) const {
    const uint32_t i = Find(set, key);
    if (i == kNotFound || type[i] != wanted) return std::nullopt;
    return static_cast<StringId>(value[i]);
  }
};

enum SliceFlags : uint8_t {
  kSliceUnclosed = 1u << 0,   // its end was missing; closed at the end of the data
  kSliceMovedLane = 1u << 1,  // overlapped a sibling partially; moved to a separate lane
};

struct SliceTable {
  std::vector<int64_t> ts;   // start
  std::vector<int64_t> end;  // end (ts + dur)
  std::vector<uint32_t> track;
  std::vector<StringId> name;
  std::vector<StringId> category;  // "cpu_op", "user_annotation", "kernel", ...
  std::vector<uint32_t> args;      // ArgTable set (0: none)
  std::vector<uint16_t> depth;
  std::vector<uint32_t> parent;  // kNoRow at the top
  std::vector<uint8_t> flags;
  size_t size() const { return ts.size(); }
  int64_t dur(size_t row) const { return end[row] - ts[row]; }
};

struct InstantTable {
  std::vector<int64_t> ts;
  std::vector<uint32_t> track;
  std::vector<StringId> name;
  std::vector<StringId> category;
  std::vector<uint32_t> args;
  size_t size() const { return ts.size(); }
};

// One counter track (a series of samples), e.g. "CPU Usage"/cpu 3 or "Memory"/pid.
struct CounterSeriesTable {
  std::vector<StringId> name;
  std::vector<uint32_t> process;  // owning ProcessTable row
  std::vector<uint16_t> scope;    // format::CounterScope
  std::vector<uint32_t> instance;
  std::vector<StringId> unit;
  size_t size() const { return name.size(); }
};

struct CounterTable {
  std::vector<uint32_t> series;
  std::vector<int64_t> ts;
  std::vector<double> value;
  size_t size() const { return ts.size(); }
};

// Directed links between two slices (launch → kernel "ac2g", forward → backward "fwdbwd").
struct FlowTable {
  std::vector<uint64_t> id;
  std::vector<uint32_t> from_slice;
  std::vector<uint32_t> to_slice;
  std::vector<StringId> category;
  size_t size() const { return id.size(); }
};

// Marker (mstx/NVTX) details for msprof_tx exports; slice or instant row they describe.
enum class MarkerEventType : uint8_t { kMarker = 0, kPushPop = 1, kStartEnd = 2 };

// What only some markers carry: attributes (category, payload, color) and, for start/end
// ranges, the thread where the range ended, the runtime's range id and the range's device
// span. Kept apart so that the common marker without attributes costs 14 bytes instead of 41.
struct MarkerDetailTable {
  std::vector<uint16_t> category;
  std::vector<uint8_t> payload_type;  // format::MarkerPayloadType
  std::vector<uint64_t> payload;
  std::vector<uint32_t> color_argb;
  std::vector<uint32_t> end_thread;  // ThreadTable row where a start/end range ended
  std::vector<uint64_t> range_id;    // start/end ranges: the runtime's range id, else 0
  // SliceTable row of the range's span on its stream (an mstx range given a stream, CUDA
  // source), kNoRow when it has none.
  std::vector<uint32_t> device_slice;
  size_t size() const { return category.size(); }
};

struct MarkerTable {
  std::vector<uint8_t> is_instant;
  std::vector<uint32_t> row;  // SliceTable or InstantTable row
  std::vector<MarkerEventType> event_type;
  std::vector<StringId> domain;
  std::vector<uint32_t> detail;  // MarkerDetailTable row, kNoRow when it has none
  MarkerDetailTable details;
  size_t size() const { return row.size(); }

  uint16_t category(size_t i) const { return Has(i) ? details.category[detail[i]] : 0; }
  uint8_t payload_type(size_t i) const { return Has(i) ? details.payload_type[detail[i]] : 0; }
  uint64_t payload(size_t i) const { return Has(i) ? details.payload[detail[i]] : 0; }
  uint32_t color_argb(size_t i) const { return Has(i) ? details.color_argb[detail[i]] : 0; }
  // kNoRow: an instant, or a range that ended on the thread where it started.
  uint32_t end_thread(size_t i) const { return Has(i) ? details.end_thread[detail[i]] : kNoRow; }
  uint64_t range_id(size_t i) const { return Has(i) ? details.range_id[detail[i]] : 0; }
  uint32_t device_slice(size_t i) const {
    return Has(i) ? details.device_slice[detail[i]] : kNoRow;
  }

 private:
  bool Has(size_t i) const { return detail[i] != kNoRow; }
};

// A device's properties as the collection recorded them (the CUDA source's device record,
// from CUPTI's device activity): Kineto's deviceProperties, the memory capacity the memory
// analysis judges peaks against, the limits occupancy is estimated from. One row per device
// process; a handful of rows, so a row struct rather than columns.
struct DeviceProperties {
  uint32_t process = kNoRow;  // ProcessTable row of the device
  StringId name = kNoString;  // "NVIDIA H100 80GB HBM3"
  uint64_t total_memory = 0;  // bytes (totalGlobalMem); 0: not recorded
  uint32_t sm_count = 0;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t warp_size = 0;
  uint32_t registers_per_block = 0;
  uint32_t registers_per_sm = 0;
  uint32_t shared_memory_per_block = 0;  // bytes
  uint32_t shared_memory_per_sm = 0;     // bytes
};

// A host's physical memory as the runtime recorded it when the process started (metadata
// "mem_total_bytes": MemTotal); the capacity the memory analysis judges host memory against.
struct HostProperties {
  StringId host = kNoString;  // hostname
  uint64_t total_memory = 0;  // bytes
};

struct DropTable {
  std::vector<uint32_t> thread;  // ThreadTable row
  std::vector<uint8_t> kind;     // record kind dropped (0: unknown)
  std::vector<uint64_t> count;   // cumulative, final value
  std::vector<int64_t> last_ts;  // when the count was last reported
  size_t size() const { return count.size(); }
  uint64_t total() const {
    uint64_t sum = 0;
    for (uint64_t c : count) sum += c;
    return sum;
  }
};

struct FileReport {
  std::string path;
  format::ReadReport report;
  std::string error;  // set when the file could not be opened at all
};

struct Model {
  StringPool strings;
  ProcessTable processes;
  ThreadTable threads;
  TrackTable tracks;
  ArgTable args;
  SliceTable slices;
  InstantTable instants;
  CounterSeriesTable counter_series;
  CounterTable counters;
  FlowTable flows;
  MarkerTable markers;
  RecordedStepTable recorded_steps;  // step records as read; consumers read `steps`
  StepTable steps;                   // the step model (steps.h), filled by ResolveSteps
  StepLoopTable step_loops;
  DropTable drops;
  CpuProfileTables cpu;  // CPU sampling (cpu_profile.h)
  std::vector<DeviceProperties> devices;
  std::vector<HostProperties> hosts;
  std::vector<FileReport> files;
  uint64_t raw_bytes = 0;
  uint64_t records = 0;
  uint64_t unknown_records = 0;  // kinds no importer understood (newer writer)
  uint64_t unmatched_ends = 0;   // pops/ends/step ends without an open begin
  int64_t start_ns = 0;          // collection window (realtime ns), 0 if unknown
  int64_t end_ns = 0;

  std::string_view Str(StringId id) const { return strings.Get(id); }
  uint32_t ThreadOfSlice(size_t row) const { return tracks.thread[slices.track[row]]; }
  uint32_t ProcessOfThread(uint32_t thread) const { return threads.process[thread]; }
  const DeviceProperties* DeviceOfProcess(uint32_t process) const {
    for (const DeviceProperties& device : devices) {
      if (device.process == process) return &device;
    }
    return nullptr;
  }
};

}  // namespace aiprof::model
