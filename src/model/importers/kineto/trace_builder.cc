#include "model/importers/kineto/trace_builder.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <filesystem>
#include <unordered_set>

#include "format/records.h"
#include "model/nesting.h"
#include "model/process_rows.h"

namespace aiprof::model::kineto {
namespace {

// Kineto's own bookkeeping "processes": the trace span ("Spans"), iteration markers
// ("Traces") and the window's end marker (pid ""). They describe the profiled process, so
// their threads join it.
bool IsBookkeepingPid(const IdValue& pid) {
  return !pid.present ||
         (pid.is_string && (pid.text.empty() || pid.text == "Spans" || pid.text == "Traces"));
}

// aiprof's writer puts an extra lane of a thread at tid | lane << 23.
constexpr int kLaneShift = 23;

// An autograd node as PyTorch names it: "AddmmBackward0", "NllLossBackward0" (the legacy
// profiler records it as an operator; Kineto writes it as cpu_op).
bool IsAutogradNodeName(std::string_view name) {
  const size_t digits = name.find_last_not_of("0123456789");
  if (digits == std::string_view::npos || digits + 1 == name.size()) return false;
  constexpr std::string_view kSuffix = "Backward";
  const std::string_view stem = name.substr(0, digits + 1);
  return stem.size() > kSuffix.size() && stem.ends_with(kSuffix) &&
         stem.find_first_of(" .#:") == std::string_view::npos;
}

std::string PidKey(const IdValue& pid) {
  if (!pid.present) return "s";
  return pid.is_string ? "s" + std::string(pid.text) : "n" + std::to_string(pid.number);
}

// What aiprof's Kineto writer adds to a slice's arguments from the model's flags, its marker
// table and the memory analysis (src/export/timeline/trace_json.cc).
bool IsWriterArgument(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "Unclosed",    "Overlap lane",     "Marker domain", "Marker type",      "Step record",
      "CPU Mem (B)", "Self CPU Mem (B)", "CUDA Mem (B)",  "Self CUDA Mem (B)"};
  for (std::string_view k : kKeys) {
    if (key == k) return true;
  }
  return false;
}

const ArgValue* FindArg(const Event& event, std::string_view key) {
  for (const ArgValue& arg : event.args) {
    if (arg.key == key) return &arg;
  }
  return nullptr;
}

bool ArgNumber(const ArgValue& arg, double* value) {
  switch (arg.type) {
    case ArgType::kInt:
      *value = static_cast<double>(static_cast<int64_t>(arg.bits));
      return true;
    case ArgType::kUInt:
      *value = static_cast<double>(arg.bits);
      return true;
    case ArgType::kDouble:
      *value = std::bit_cast<double>(arg.bits);
      return true;
    case ArgType::kString: {
      const auto [end, error] =
          std::from_chars(arg.text.data(), arg.text.data() + arg.text.size(), *value);
      return error == std::errc() && end == arg.text.data() + arg.text.size();
    }
    default:
      return false;
  }
}

}  // namespace

TraceBuilder::TraceBuilder(Model* model, const TraceHeader* header)
    : model_(*model), header_(*header), context_(model), strings_(&model->strings) {
  cpu_op_ = context_.Intern("cpu_op");
  user_annotation_ = context_.Intern("user_annotation");
  memory_name_ = context_.Intern("[memory]");
  bytes_unit_ = context_.Intern("bytes");
}

void TraceBuilder::Note(const std::string& what) {
  ++not_mapped_[what];
}

uint32_t TraceBuilder::Process(const IdValue& pid) {
  const bool numeric = pid.present && !pid.is_string;
  if (numeric) {
    auto found = process_by_number_.find(pid.number);
    if (found != process_by_number_.end()) return found->second;
  } else {
    auto found = process_by_text_.find(std::string(pid.text));
    if (found != process_by_text_.end()) return found->second;
  }
  const uint32_t row = static_cast<uint32_t>(model_.processes.size());
  ProcessInfo info;
  info.numeric = numeric;
  info.number = pid.number;
  info.text = std::string(pid.text);
  const bool fits = numeric && pid.number >= 0 && pid.number < kSyntheticPid;
  const uint32_t os_pid =
      fits ? static_cast<uint32_t>(pid.number) : kSyntheticPid + next_synthetic_++;
  ProcessRow process;
  process.pid = os_pid;
  process.sort_index = os_pid;
  AppendProcess(model_.processes, process);
  processes_.push_back(std::move(info));
  if (numeric) {
    process_by_number_.emplace(pid.number, row);
  } else {
    process_by_text_.emplace(std::string(pid.text), row);
  }
  return row;
}

uint32_t TraceBuilder::ThreadTid(uint32_t process, const IdValue& tid) {
  if (tid.present && !tid.is_string) {
    const int64_t magnitude = tid.number < 0 ? -tid.number : tid.number;  // Kineto: abs()
    if (magnitude < kSyntheticPid) return static_cast<uint32_t>(magnitude);
  }
  std::string key = std::to_string(process) + '\n';
  if (tid.present && tid.is_string) {
    key += tid.text;
  } else if (tid.present) {
    key += std::to_string(tid.number);
  }
  auto [it, inserted] = text_tids_.try_emplace(std::move(key), 0);
  if (inserted) it->second = kSyntheticPid + next_synthetic_++;
  return it->second;
}

uint32_t TraceBuilder::Thread(uint32_t process, const IdValue& tid, bool* moved_lane) {
  *moved_lane = false;
  if (tid.present && !tid.is_string && process < processes_.size() && tid.number == last_tid_ &&
      process == last_process_) {
    return last_thread_;
  }
  uint32_t os_tid = ThreadTid(process, tid);
  // aiprof's writer puts extra lanes (1..499) of a thread at tid | lane << 23; lane 500 is
  // the CPU sampling lane, a thread of its own.
  const uint32_t lane = os_tid >> kLaneShift;
  if (header_.written_by_aiprof && lane >= 1 && lane < 500 && os_tid < kSyntheticPid) {
    os_tid &= (1u << kLaneShift) - 1;
    *moved_lane = true;
  }
  const uint32_t row = context_.Thread(process, os_tid);
  if (tid.present && tid.is_string && !tid.text.empty() && model_.threads.name[row] == kNoString) {
    model_.threads.name[row] = context_.Intern(tid.text);  // a thread named by text
  }
  if (tid.present && !tid.is_string && !*moved_lane) {
    last_process_ = process;
    last_tid_ = tid.number;
    last_thread_ = row;
  }
  return row;
}

TraceBuilder::CategoryKind TraceBuilder::KindOf(StringId category) {
  if (category >= category_kind_.size()) category_kind_.resize(model_.strings.size() + 64, kUnseen);
  uint8_t& kind = category_kind_[category];
  if (kind == kUnseen) {
    const std::string_view text = model_.Str(category);
    kind = kPlain;
    if (text == "kernel" || text == "Kernel" || text == "gpu_memcpy" || text == "gpu_memset" ||
        text == "gpu_user_annotation" || text == "cuda_sync") {
      kind = kDevice;
    }
    // The Overlap Analysis lanes aiprof's writer adds: derived from the events, recomputed.
    if (header_.written_by_aiprof && text == "overlap_analysis") kind = kDerived;
  }
  return static_cast<CategoryKind>(kind);
}

StringId TraceBuilder::Category(const Event& event) {
  if (!event.category.empty()) return strings_.Intern(event.category);
  // The legacy profiler writes no category: operators have a namespace ("aten::add") or are
  // autograd nodes ("AddmmBackward0"), record_function ranges (ProfilerStep#N, user ranges)
  // are neither.
  if (event.phase != 'X' && event.phase != 'B') return kNoString;
  if (event.pid.is_string && event.pid.text == "CUDA functions") return context_.Intern("kernel");
  if (event.name.find("::") != std::string_view::npos) return cpu_op_;
  if (IsAutogradNodeName(event.name)) return cpu_op_;
  return user_annotation_;
}

uint32_t TraceBuilder::CommitArgs(const Event& event, uint8_t* flags) {
  // As ArgSetBuilder does, with the keys and texts interned through the cache.
  ArgTable& table = model_.args;
  const size_t first = table.key.size();
  for (const ArgValue& arg : event.args) {
    if (header_.written_by_aiprof && IsWriterArgument(arg.key)) {
      // aiprof's writer marks slices closed at the end of the data, slices on an extra lane
      // and markers with these (flags and marker rows of the model, not arguments), and adds
      // each operator's memory as the memory analysis attributed it (recomputed).
      if (arg.key == "Unclosed" && flags != nullptr) *flags |= kSliceUnclosed;
      continue;
    }
    uint64_t value = arg.bits;
    if (arg.type == ArgType::kString) value = strings_.Intern(arg.text);
    if (arg.type == ArgType::kJson) value = strings_.Intern(arg.text == "null" ? "" : arg.text);
    table.key.push_back(strings_.Intern(arg.key));
    table.type.push_back(arg.type);
    table.value.push_back(value);
  }
  if (table.key.size() == first) return 0;
  table.set_begin.push_back(static_cast<uint32_t>(table.key.size()));
  return static_cast<uint32_t>(table.sets() - 1);
}

// A step record (prof.step() without a schedule, aiprofStepBegin) that aiprof's writer marks
// with "Step record": N, as the core importer reads it: a step, not an operator.
void TraceBuilder::AddStepRecord(const Event& event, uint32_t row) {
  const ArgValue* step = FindArg(event, "Step record");
  double number = 0;
  if (step == nullptr || !ArgNumber(*step, &number) || number < 0) return;
  model_.recorded_steps.slice.push_back(row);
  model_.recorded_steps.step.push_back(static_cast<uint64_t>(number));
}

// The marker row (mstx/NVTX) aiprof's writer describes with "Marker domain"/"Marker type".
void TraceBuilder::AddMarker(const Event& event, bool instant, uint32_t row) {
  const ArgValue* domain = FindArg(event, "Marker domain");
  if (domain == nullptr || domain->type != ArgType::kString) return;
  const ArgValue* kind = FindArg(event, "Marker type");
  MarkerEventType type = instant ? MarkerEventType::kMarker : MarkerEventType::kPushPop;
  if (kind != nullptr && kind->text == "start/end") type = MarkerEventType::kStartEnd;
  MarkerTable& m = model_.markers;
  m.is_instant.push_back(instant ? 1 : 0);
  m.row.push_back(row);
  m.event_type.push_back(type);
  m.domain.push_back(context_.Intern(domain->text));
  if (type != MarkerEventType::kStartEnd) {
    m.detail.push_back(kNoRow);
    return;
  }
  // A start/end range always has its detail row (core_importer.cc); its attributes are not
  // in the trace.
  MarkerDetailTable& d = m.details;
  m.detail.push_back(static_cast<uint32_t>(d.size()));
  d.category.push_back(0);
  d.payload_type.push_back(0);
  d.payload.push_back(0);
  d.color_argb.push_back(0);
  d.end_thread.push_back(kNoRow);
  d.range_id.push_back(0);
  d.device_slice.push_back(kNoRow);
}

bool TraceBuilder::Add(const Event& event, std::string* why) {
  bool ok = true;
  switch (event.phase) {
    case 'X':
      ok = AddSlice(event, why);
      break;
    case 'B':
    case 'E':
    case 'b':
    case 'e':
      ok = AddBeginEnd(event, why);
      break;
    case 'i':
    case 'I':
    case 'R':
      ok = AddInstant(event);
      if (!ok) *why = "instant event without \"ts\"";
      break;
    case 'C':
      ok = AddCounter(event);
      if (!ok) *why = "counter event without \"ts\" or numeric values";
      break;
    case 's':
    case 't':
    case 'f':
      ok = AddFlow(event);
      if (!ok) *why = "flow event without \"ts\" or \"id\"";
      break;
    case 'M':
      AddMetadata(event);
      break;
    case 0:
      *why = "event without \"ph\"";
      return false;
    default:
      Note(std::string("events of phase '") + event.phase + "' (no model row for them)");
      return true;
  }
  if (ok) ++imported_;
  return ok;
}

bool TraceBuilder::AddSlice(const Event& event, std::string* why) {
  if (!event.has_ts) {
    *why = "complete event without \"ts\"";
    return false;
  }
  const StringId category = Category(event);
  const CategoryKind kind = KindOf(category);
  if (kind == kDerived) {
    Note("Overlap Analysis slices of aiprof's writer (recomputed from the events)");
    return true;
  }
  const uint32_t process = IsBookkeepingPid(event.pid) ? Process({}) : Process(event.pid);
  bool moved_lane = false;
  const uint32_t thread = Thread(process, event.tid, &moved_lane);
  const int64_t dur = std::max<int64_t>(event.has_dur ? event.dur_ns : 0, 0);
  if (event.has_dur && event.dur_ns < 0) Note("slices with a negative \"dur\" (read as 0)");
  uint8_t flags = 0;
  const uint32_t args = CommitArgs(event, &flags);
  const uint32_t row =
      context_.AddSlice(context_.MainTrack(thread), static_cast<uint64_t>(event.ts_ns),
                        event.ts_ns + dur, strings_.Intern(event.name), category, args);
  model_.slices.flags[row] |= flags;
  if (header_.written_by_aiprof) {
    AddMarker(event, false, row);
    AddStepRecord(event, row);
  }
  ProcessInfo& info = processes_[process];
  ++info.slices;
  info.device_events |= kind == kDevice;
  min_ts_ = std::min(min_ts_, event.ts_ns);
  max_end_ = std::max(max_end_, event.ts_ns + dur);
  return true;
}

bool TraceBuilder::AddBeginEnd(const Event& event, std::string* why) {
  if (!event.has_ts) {
    *why = "begin/end event without \"ts\"";
    return false;
  }
  const uint32_t process = Process(event.pid);
  bool moved_lane = false;
  const uint32_t thread = Thread(process, event.tid, &moved_lane);
  const bool async = event.phase == 'b' || event.phase == 'e';
  const StringId category = Category(event);
  min_ts_ = std::min(min_ts_, event.ts_ns);
  max_end_ = std::max(max_end_, event.ts_ns);
  if (event.phase == 'B' || event.phase == 'b') {
    const uint32_t row =
        context_.AddSlice(context_.MainTrack(thread), static_cast<uint64_t>(event.ts_ns), kOpenEnd,
                          strings_.Intern(event.name), category, CommitArgs(event, nullptr));
    ++processes_[process].slices;
    processes_[process].device_events |= KindOf(category) == kDevice;
    if (async) {
      const uint64_t id = event.id.is_string ? std::hash<std::string_view>()(event.id.text)
                                             : static_cast<uint64_t>(event.id.number);
      open_async_[{process, category, id}] = row;
    } else {
      open_slices_[thread].push_back(row);
    }
    return true;
  }
  uint32_t row = kNoRow;
  if (async) {
    const uint64_t id = event.id.is_string ? std::hash<std::string_view>()(event.id.text)
                                           : static_cast<uint64_t>(event.id.number);
    auto found = open_async_.find({process, category, id});
    if (found != open_async_.end()) {
      row = found->second;
      open_async_.erase(found);
    }
  } else {
    std::vector<uint32_t>& stack = open_slices_[thread];
    if (!stack.empty()) {
      row = stack.back();
      stack.pop_back();
    }
  }
  if (row == kNoRow) {
    ++model_.unmatched_ends;
    return true;
  }
  context_.EndSlice(row, static_cast<uint64_t>(std::max(event.ts_ns, model_.slices.ts[row])));
  return true;
}

bool TraceBuilder::AddInstant(const Event& event) {
  if (!event.has_ts) return false;
  const uint32_t process = IsBookkeepingPid(event.pid) ? Process({}) : Process(event.pid);
  bool moved_lane = false;
  const uint32_t thread = Thread(process, event.tid, &moved_lane);
  const StringId name = strings_.Intern(event.name);
  const uint32_t row =
      context_.AddInstant(context_.MainTrack(thread), static_cast<uint64_t>(event.ts_ns), name,
                          Category(event), CommitArgs(event, nullptr));
  if (header_.written_by_aiprof) AddMarker(event, true, row);
  if (name == memory_name_ && !header_.written_by_aiprof) AddMemoryCounters(event, process);
  min_ts_ = std::min(min_ts_, event.ts_ns);
  max_end_ = std::max(max_end_, event.ts_ns);
  return true;
}

// Kineto traces carry the allocator's totals only in the [memory] instants; the torch
// importer also draws them as "Total Allocated (<device>)" / "Total Reserved (<device>)"
// counters per process, so a Kineto trace gets the same tracks.
void TraceBuilder::AddMemoryCounters(const Event& event, uint32_t process) {
  double type = 0, index = -1, allocated = 0, reserved = 0;
  const ArgValue* total = FindArg(event, "Total Allocated");
  if (total == nullptr || !ArgNumber(*total, &allocated)) return;
  if (const ArgValue* arg = FindArg(event, "Device Type")) ArgNumber(*arg, &type);
  if (const ArgValue* arg = FindArg(event, "Device Id")) ArgNumber(*arg, &index);
  const ArgValue* reserved_arg = FindArg(event, "Total Reserved");
  const bool has_reserved = reserved_arg != nullptr && ArgNumber(*reserved_arg, &reserved);
  auto key = std::make_tuple(process, static_cast<int64_t>(type), static_cast<int64_t>(index));
  auto [it, inserted] = memory_series_.try_emplace(key, kNoRow, kNoRow);
  if (inserted) {
    const int device_type = static_cast<int>(type);
    std::string device = device_type == 0   ? "CPU"
                         : device_type == 1 ? "CUDA"
                                            : "device" + std::to_string(device_type);
    if (index >= 0) device += ":" + std::to_string(static_cast<int64_t>(index));
    const auto scope = static_cast<uint16_t>(format::CounterScope::kProcess);
    const uint32_t pid = model_.processes.pid[process];
    it->second.first = context_.CounterSeries(context_.Intern("Total Allocated (" + device + ")"),
                                              process, scope, pid, bytes_unit_);
    it->second.second = context_.CounterSeries(context_.Intern("Total Reserved (" + device + ")"),
                                               process, scope, pid, bytes_unit_);
  }
  context_.AddCounter(it->second.first, static_cast<uint64_t>(event.ts_ns), allocated);
  if (has_reserved) {
    context_.AddCounter(it->second.second, static_cast<uint64_t>(event.ts_ns), reserved);
  }
}

bool TraceBuilder::AddCounter(const Event& event) {
  if (!event.has_ts) return false;
  if (header_.written_by_aiprof && event.category == "memory_analysis") {
    Note("memory category counters of aiprof's writer (recomputed by the memory analysis)");
    return true;
  }
  const uint32_t process = IsBookkeepingPid(event.pid) ? Process({}) : Process(event.pid);
  bool any = false;
  for (const ArgValue& arg : event.args) {
    double value = 0;
    if (!ArgNumber(arg, &value)) continue;
    std::string name(event.name);
    if (arg.key != "value" && event.args.size() > 1) name += " " + std::string(arg.key);
    auto scope = static_cast<uint16_t>(format::CounterScope::kProcess);
    uint32_t instance = model_.processes.pid[process];
    if (header_.written_by_aiprof) {
      // aiprof's writer names a counter of a CPU, device or thread "<name> cpu 3".
      static constexpr std::pair<std::string_view, format::CounterScope> kScopes[] = {
          {" cpu ", format::CounterScope::kCpu},
          {" device ", format::CounterScope::kDevice},
          {" thread ", format::CounterScope::kThread}};
      for (const auto& [word, counter_scope] : kScopes) {
        const size_t at = name.rfind(word);
        if (at == std::string::npos) continue;
        uint32_t number = 0;
        const char* first = name.data() + at + word.size();
        const auto [end, error] = std::from_chars(first, name.data() + name.size(), number);
        if (error != std::errc() || end != name.data() + name.size() || first == end) continue;
        scope = static_cast<uint16_t>(counter_scope);
        instance = number;
        name.resize(at);
        break;
      }
      // Its drop counter is one series per process (core_importer.cc): instance 0.
      if (name == "Dropped events") instance = 0;
    }
    const StringId name_id = strings_.Intern(name);
    const uint64_t key = (uint64_t{process} << 32) | name_id;
    auto [it, inserted] = counter_series_.try_emplace(key, 0);
    if (inserted) it->second = context_.CounterSeries(name_id, process, scope, instance, kNoString);
    context_.AddCounter(it->second, static_cast<uint64_t>(event.ts_ns), value);
    any = true;
  }
  if (!any) return false;
  min_ts_ = std::min(min_ts_, event.ts_ns);
  max_end_ = std::max(max_end_, event.ts_ns);
  return true;
}

bool TraceBuilder::AddFlow(const Event& event) {
  if (!event.has_ts || !event.id.present) return false;
  if (event.phase == 't') {
    Note("flow steps (\"t\"; a flow links its start to its end)");
    return true;
  }
  const uint32_t process = Process(event.pid);
  bool moved_lane = false;
  const uint32_t thread = Thread(process, event.tid, &moved_lane);
  const uint64_t key = event.id.is_string ? std::hash<std::string_view>()(event.id.text)
                                          : static_cast<uint64_t>(event.id.number);
  const StringId category = strings_.Intern(event.category.empty() ? event.name : event.category);
  char phase = event.phase;
  if (phase == 'f' && !event.binds_enclosing) phase = 'F';  // binds to the next slice
  flow_ends_.push_back({thread, event.ts_ns, key, category, phase});
  return true;
}

bool TraceBuilder::AddMetadata(const Event& event) {
  const ArgValue* value = nullptr;
  std::string_view field;
  if (event.name == "process_name" || event.name == "thread_name") {
    field = "name";
  } else if (event.name == "process_labels") {
    field = "labels";
  } else if (event.name == "process_sort_index" || event.name == "thread_sort_index") {
    field = "sort_index";
  } else {
    Note("metadata events \"" + std::string(event.name) + "\"");
    return true;
  }
  value = FindArg(event, field);
  if (value == nullptr) return true;
  const std::string pid_key = IsBookkeepingPid(event.pid) ? "s" : PidKey(event.pid);
  double number = 0;
  const bool is_number = ArgNumber(*value, &number);
  if (event.name.starts_with("process_")) {
    ProcessInfo& info = process_meta_[pid_key];
    if (field == "name" && value->type == ArgType::kString) info.name = std::string(value->text);
    if (field == "labels" && value->type == ArgType::kString) info.label = std::string(value->text);
    if (field == "sort_index" && is_number) {
      info.has_sort = true;
      info.sort = static_cast<int64_t>(number);
    }
    return true;
  }
  if (!event.tid.present) return true;
  uint32_t tid = 0;
  if (!event.tid.is_string) {
    const int64_t magnitude = event.tid.number < 0 ? -event.tid.number : event.tid.number;
    if (magnitude >= kSyntheticPid) return true;
    tid = static_cast<uint32_t>(magnitude);
  } else {
    return true;  // a thread named by text is named by that text already
  }
  ThreadMeta& meta = thread_meta_[{pid_key, tid}];
  if (field == "name" && value->type == ArgType::kString) meta.name = std::string(value->text);
  if (field == "sort_index" && is_number) {
    meta.has_sort = true;
    meta.sort = static_cast<int64_t>(number);
  }
  return true;
}

}  // namespace aiprof::model::kineto
