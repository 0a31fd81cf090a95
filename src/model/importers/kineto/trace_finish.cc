// TraceBuilder::Finish: what is decided once every event is read (the time base, which
// processes are devices, names and sort indices, Kineto's bookkeeping threads, the nesting,
// the flows, aiprof's drop counters).
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <unordered_map>

#include "model/importers/kineto/trace_builder.h"
#include "model/nesting.h"

namespace aiprof::model::kineto {
namespace {

// "GPU 3", "NPU 0", "XPU 1": the device a process label names; -1 for other labels.
int32_t LabelDevice(std::string_view label) {
  for (std::string_view prefix : {"GPU ", "NPU ", "XPU ", "MTIA ", "HPU "}) {
    if (!label.starts_with(prefix)) continue;
    int32_t device = -1;
    const std::string_view rest = label.substr(prefix.size());
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), device);
    if (error == std::errc() && device >= 0) return device;
  }
  return -1;
}

// "thread 12 (main)" → "main", "stream 7 " → "": the names Kineto's and aiprof's writers
// build around the thread's own name (aiprof adds " overlap lane N" for extra lanes).
std::string ThreadOwnName(std::string_view text, uint32_t tid) {
  for (std::string_view word : {"thread ", "stream "}) {
    const std::string prefix = std::string(word) + std::to_string(tid);
    if (!text.starts_with(prefix)) continue;
    std::string_view rest = text.substr(prefix.size());
    if (const size_t lane = rest.find(" overlap lane "); lane != std::string_view::npos) {
      rest = rest.substr(0, lane);
    }
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')') {
      return std::string(rest.substr(1, rest.size() - 2));
    }
    if (rest.empty()) return "";
  }
  return std::string(text);
}

}  // namespace

int64_t TraceBuilder::TimeBase(int64_t file_mtime_ns, std::vector<std::string>* notes) {
  if (header_.has_base) return header_.base_ns;
  if (min_ts_ == INT64_MAX) return 0;
  // Without a base, Kineto wrote absolute epoch µs; anything before 1971 is relative time
  // (the legacy profiler counts from its start).
  constexpr int64_t kYear1971Ns = 365LL * 24 * 3600 * 1'000'000'000;
  if (min_ts_ >= kYear1971Ns) return 0;
  notes->push_back(
      "the trace has no absolute time (no baseTimeNanoseconds, small \"ts\"): placed to end at "
      "the file's modification time");
  return file_mtime_ns - max_end_;
}

void TraceBuilder::ShiftTimes(int64_t base) {
  if (base == 0) return;
  for (int64_t& ts : model_.slices.ts) ts += base;
  for (int64_t& end : model_.slices.end) {
    if (end != kOpenEnd) end += base;
  }
  for (int64_t& ts : model_.instants.ts) ts += base;
  for (int64_t& ts : model_.counters.ts) ts += base;
  for (FlowEnd& end : flow_ends_) end.ts += base;
}

// Kineto's "Spans"/"Traces" bookkeeping threads belong to the profiled process: they join
// the host process with the most slices, so the model's process count is the job's.
void TraceBuilder::RehomeBookkeeping() {
  auto bookkeeping = process_by_text_.find("");
  if (bookkeeping == process_by_text_.end()) return;
  const uint32_t from = bookkeeping->second;
  uint32_t to = kNoRow;
  for (uint32_t row = 0; row < processes_.size(); ++row) {
    if (row == from || processes_[row].device_events || model_.processes.device_id[row] >= 0) {
      continue;
    }
    if (to == kNoRow || processes_[row].slices > processes_[to].slices) to = row;
  }
  if (to == kNoRow) {
    processes_[from].name = "Spans";
    return;
  }
  for (uint32_t& process : model_.threads.process) {
    if (process == from) process = to;
  }
  for (uint32_t& process : model_.counter_series.process) {
    if (process == from) process = to;
  }
  // The emptied row is removed; rows after it move up.
  ProcessTable& p = model_.processes;
  auto erase = [from](auto& column) { column.erase(column.begin() + from); };
  erase(p.pid);
  erase(p.host);
  erase(p.name);
  erase(p.label);
  erase(p.sort_index);
  erase(p.device_id);
  erase(p.rank);
  erase(p.metadata);
  processes_.erase(processes_.begin() + from);
  for (uint32_t& process : model_.threads.process) process -= process > from ? 1 : 0;
  for (uint32_t& process : model_.counter_series.process) process -= process > from ? 1 : 0;
  for (auto& [key, row] : process_by_number_) row -= row > from ? 1 : 0;
  process_by_text_.erase(bookkeeping);
  for (auto& [key, row] : process_by_text_) row -= row > from ? 1 : 0;
}

void TraceBuilder::FinishProcesses(const std::string& trace_path) {
  ProcessTable& p = model_.processes;
  std::string host = header_.host_name;
  // Without host_name, the file names the host: traces of several ranks stay apart.
  if (host.empty()) host = std::filesystem::path(trace_path).filename().string();
  const StringId host_id = context_.Intern(host);
  const int32_t rank = HeaderRank(header_);
  const std::string metadata = ProcessMetadataJson(header_, trace_path);
  for (uint32_t row = 0; row < p.size(); ++row) {
    ProcessInfo& info = processes_[row];
    const std::string pid_key = info.numeric ? "n" + std::to_string(info.number) : "s" + info.text;
    if (auto meta = process_meta_.find(pid_key); meta != process_meta_.end()) {
      if (!meta->second.name.empty()) info.name = meta->second.name;
      if (!meta->second.label.empty()) info.label = meta->second.label;
      if (meta->second.has_sort) {
        info.has_sort = true;
        info.sort = meta->second.sort;
      }
    }
    int32_t device = LabelDevice(info.label);
    if (device < 0 && info.has_sort && info.sort >= kDeviceSortBase &&
        info.sort < kDeviceSortBase + 0x10000) {
      device = static_cast<int32_t>(info.sort - kDeviceSortBase);
    }
    if (device < 0 && info.device_events) {
      device = info.numeric && info.number >= 0 && info.number < 0x10000
                   ? static_cast<int32_t>(info.number)
                   : 0;
    }
    p.host[row] = host_id;
    p.rank[row] = rank;
    if (device >= 0) {
      const std::string label = "GPU " + std::to_string(device);
      p.pid[row] = static_cast<uint32_t>(device);
      p.device_id[row] = device;
      p.label[row] = context_.Intern(info.label.empty() ? label : info.label);
      p.name[row] = context_.Intern(info.name.empty() ? label : info.name);
      p.sort_index[row] = info.has_sort ? info.sort : kDeviceSortBase + device;
      continue;
    }
    std::string name = info.name;
    if (name.empty()) name = info.numeric ? "process " + std::to_string(info.number) : info.text;
    p.name[row] = context_.Intern(name);
    p.label[row] = context_.Intern(info.label.empty() ? "CPU" : info.label);
    if (info.has_sort) p.sort_index[row] = info.sort;
    p.metadata[row] = metadata;
  }
}

void TraceBuilder::FinishThreads() {
  ThreadTable& t = model_.threads;
  for (uint32_t row = 0; row < t.size(); ++row) {
    const ProcessInfo& info = processes_[t.process[row]];
    const std::string pid_key = info.numeric ? "n" + std::to_string(info.number) : "s" + info.text;
    auto meta = thread_meta_.find({pid_key, t.tid[row]});
    if (meta == thread_meta_.end()) continue;
    if (!meta->second.name.empty()) {
      t.name[row] = context_.Intern(ThreadOwnName(meta->second.name, t.tid[row]));
    }
    if (meta->second.has_sort) {
      // aiprof's writer orders lanes within a thread: thread sort × 1000 + lane.
      t.sort_index[row] = header_.written_by_aiprof ? meta->second.sort / 1000 : meta->second.sort;
    }
  }
}

// aiprof's writer draws each process's drop count as a "Dropped events" counter (its last
// value is the process's total): back into the drop table, which every output reports.
void TraceBuilder::FinishDrops() {
  if (!header_.written_by_aiprof) return;
  const StringId dropped = model_.strings.Find("Dropped events");
  if (dropped == StringPool::kMissing) return;
  std::unordered_map<uint32_t, double> last;  // series → largest value
  for (size_t i = 0; i < model_.counters.size(); ++i) {
    const uint32_t series = model_.counters.series[i];
    if (model_.counter_series.name[series] != dropped) continue;
    double& value = last[series];
    value = std::max(value, model_.counters.value[i]);
  }
  for (const auto& [series, count] : last) {
    if (count <= 0) continue;
    const uint32_t process = model_.counter_series.process[series];
    uint32_t thread = kNoRow;
    for (uint32_t row = 0; row < model_.threads.size() && thread == kNoRow; ++row) {
      if (model_.threads.process[row] == process) thread = row;
    }
    if (thread == kNoRow) {  // a process with counters only
      thread = static_cast<uint32_t>(model_.threads.size());
      model_.threads.process.push_back(process);
      model_.threads.tid.push_back(model_.processes.pid[process]);
      model_.threads.name.push_back(kNoString);
      model_.threads.sort_index.push_back(model_.processes.pid[process]);
    }
    DropTable& drops = model_.drops;
    drops.thread.push_back(thread);
    drops.kind.push_back(0);
    drops.count.push_back(static_cast<uint64_t>(count));
    drops.last_ts.push_back(max_end_);
  }
}

void TraceBuilder::Finish(const std::string& trace_path, int64_t file_mtime_ns,
                          std::vector<std::string>* notes) {
  // "B" / "b" ranges never ended: closed at the end of the data, flagged.
  for (auto& [thread, stack] : open_slices_) {
    for (uint32_t row : stack) {
      model_.slices.end[row] = std::max(max_end_, model_.slices.ts[row]);
      model_.slices.flags[row] |= kSliceUnclosed;
    }
  }
  for (auto& [key, row] : open_async_) {
    model_.slices.end[row] = std::max(max_end_, model_.slices.ts[row]);
    model_.slices.flags[row] |= kSliceUnclosed;
  }
  const int64_t base = TimeBase(file_mtime_ns, notes);
  ShiftTimes(base);
  if (min_ts_ != INT64_MAX) {
    model_.start_ns = min_ts_ + base;
    model_.end_ns = max_end_ + base;
  }
  max_end_ += base;
  RehomeBookkeeping();
  FinishProcesses(trace_path);
  FinishThreads();
  AddDevices(header_, model_, [&](int32_t device) {
    ProcessTable& p = model_.processes;
    for (uint32_t row = 0; row < p.size(); ++row) {
      if (p.device_id[row] == device) return row;
    }
    IdValue id;
    id.present = true;
    id.is_string = true;
    const std::string text = "GPU " + std::to_string(device);
    id.text = text;
    const uint32_t row = Process(id);
    processes_[row].label = text;
    p.pid[row] = static_cast<uint32_t>(device);
    p.device_id[row] = device;
    p.label[row] = context_.Intern(text);
    p.name[row] = p.label[row];
    p.sort_index[row] = kDeviceSortBase + device;
    p.host[row] = p.size() > 1 ? p.host[0] : kNoString;
    p.rank[row] = HeaderRank(header_);
    return row;
  });
  ResolveNesting(model_);
  BindFlows(model_, flow_ends_, notes);
  std::vector<FlowEnd>().swap(flow_ends_);
  FinishDrops();
  for (const auto& [what, count] : not_mapped_) {
    notes->push_back(std::to_string(count) + " " + what + " not imported");
  }
}

}  // namespace aiprof::model::kineto
