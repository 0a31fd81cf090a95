// Turns the events of one Kineto / Chrome trace into model rows shaped as aiprof's raw
// importers shape theirs (model/importers/torch_importer.cc, cuda_importer.cc): host
// processes by OS pid and threads by tid; a device process per GPU (pid = device id, label
// "GPU n", sort index 0x1000000 + n) with a thread per stream; "X" events as slices with
// their category and arguments as written ("cpu_op", "user_annotation", "kernel", ...,
// unknown categories kept as they are), "B"/"E" and "b"/"e" pairs as slices, "i" events as
// instants, "C" events as counters, "s"/"f" flow events as flows bound to the slices they
// sit on (ac2g launch → kernel, fwdbwd), "M" events as process and thread names, labels and
// sort indices. Times stay as the trace writes them (ns after its base) until Finish, which
// adds the base, resolves nesting, binds the flows and fills the process metadata.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/importer.h"
#include "model/importers/kineto/event_reader.h"
#include "model/importers/kineto/flow_binding.h"
#include "model/importers/kineto/string_cache.h"
#include "model/importers/kineto/trace_header.h"
#include "model/model.h"

namespace aiprof::model::kineto {

// Process and thread numbers for pids and tids written as text ("Spans", "CPU functions"):
// above any Linux pid (pid_max <= 2^22), below the timeline's Overlap Analysis pids.
inline constexpr uint32_t kSyntheticPid = 0x7f000000;
// The Kineto writer's sort index of device n (process_sort_index).
inline constexpr int64_t kDeviceSortBase = 0x1000000;

class TraceBuilder {
 public:
  TraceBuilder(Model* model, const TraceHeader* header);

  // False with `why` set when the event cannot be imported (the caller counts it).
  bool Add(const Event& event, std::string* why);
  // `file_mtime_ns`: where a trace without an absolute time base is placed to end.
  void Finish(const std::string& trace_path, int64_t file_mtime_ns,
              std::vector<std::string>* notes);
  uint64_t imported() const { return imported_; }

 private:
  struct ProcessInfo {
    bool numeric = true;
    int64_t number = 0;
    std::string text;
    std::string name, label;
    bool has_sort = false;
    int64_t sort = 0;
    bool device_events = false;  // holds kernels, copies, sets or GPU annotations
    uint64_t slices = 0;
  };
  struct ThreadMeta {
    std::string name;
    bool has_sort = false;
    int64_t sort = 0;
  };
  enum CategoryKind : uint8_t { kUnseen, kPlain, kDevice, kDerived };

  uint32_t Process(const IdValue& pid);
  uint32_t Thread(uint32_t process, const IdValue& tid, bool* moved_lane);
  uint32_t ThreadTid(uint32_t process, const IdValue& tid);
  StringId Category(const Event& event);
  CategoryKind KindOf(StringId category);
  uint32_t CommitArgs(const Event& event, uint8_t* flags);
  void AddMarker(const Event& event, bool instant, uint32_t row);
  void AddStepRecord(const Event& event, uint32_t row);
  bool AddSlice(const Event& event, std::string* why);
  bool AddBeginEnd(const Event& event, std::string* why);
  bool AddInstant(const Event& event);
  bool AddCounter(const Event& event);
  bool AddFlow(const Event& event);
  bool AddMetadata(const Event& event);
  void AddMemoryCounters(const Event& event, uint32_t process);
  void Note(const std::string& what);

  int64_t TimeBase(int64_t file_mtime_ns, std::vector<std::string>* notes);
  void ShiftTimes(int64_t base);
  void FinishProcesses(const std::string& trace_path);
  void FinishThreads();
  void RehomeBookkeeping();
  void FinishDrops();

  Model& model_;
  const TraceHeader& header_;
  ImportContext context_;
  StringCache strings_;
  uint64_t imported_ = 0;

  std::vector<ProcessInfo> processes_;  // by process row
  std::unordered_map<int64_t, uint32_t> process_by_number_;
  std::unordered_map<std::string, uint32_t> process_by_text_;
  // Metadata events by pid key ("n<number>" or "s<text>"), applied to rows that exist.
  std::map<std::string, ProcessInfo> process_meta_;
  std::map<std::pair<std::string, uint32_t>, ThreadMeta> thread_meta_;
  std::unordered_map<std::string, uint32_t> text_tids_;  // "<process>\n<text>" → tid
  uint32_t next_synthetic_ = 0;

  // The last (pid, tid) → thread lookup: consecutive events mostly share a thread.
  uint32_t last_process_ = kNoRow;
  int64_t last_tid_ = INT64_MIN;
  uint32_t last_thread_ = kNoRow;

  std::vector<uint8_t> category_kind_;                               // by StringId
  std::unordered_map<uint64_t, std::vector<uint32_t>> open_slices_;  // "B" stacks by thread
  std::map<std::tuple<uint32_t, StringId, uint64_t>, uint32_t> open_async_;
  std::unordered_map<uint64_t, uint32_t> counter_series_;  // (process, name) → series
  std::map<std::tuple<uint32_t, int64_t, int64_t>, std::pair<uint32_t, uint32_t>> memory_series_;
  std::vector<FlowEnd> flow_ends_;
  std::map<std::string, uint64_t> not_mapped_;  // what was read but has no model row

  StringId cpu_op_, user_annotation_, memory_name_, bytes_unit_;
  int64_t min_ts_ = INT64_MAX, max_end_ = INT64_MIN;
};

}  // namespace aiprof::model::kineto
