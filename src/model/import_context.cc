#include <bit>

#include "model/importer.h"
#include "model/process_rows.h"

namespace aiprof::model {

void ArgSetBuilder::Add(std::string_view key, ArgType type, uint64_t bits) {
  ArgTable& args = model_->args;
  args.key.push_back(model_->strings.Intern(key));
  args.type.push_back(type);
  args.value.push_back(bits);
  open_ = true;
}

ArgSetBuilder& ArgSetBuilder::Int(std::string_view key, int64_t value) {
  Add(key, ArgType::kInt, static_cast<uint64_t>(value));
  return *this;
}
ArgSetBuilder& ArgSetBuilder::UInt(std::string_view key, uint64_t value) {
  Add(key, ArgType::kUInt, value);
  return *this;
}
ArgSetBuilder& ArgSetBuilder::Double(std::string_view key, double value) {
  Add(key, ArgType::kDouble, std::bit_cast<uint64_t>(value));
  return *this;
}
ArgSetBuilder& ArgSetBuilder::String(std::string_view key, StringId value) {
  Add(key, ArgType::kString, value);
  return *this;
}
ArgSetBuilder& ArgSetBuilder::String(std::string_view key, std::string_view value) {
  return String(key, model_->strings.Intern(value));
}
ArgSetBuilder& ArgSetBuilder::Json(std::string_view key, std::string_view json) {
  Add(key, ArgType::kJson, model_->strings.Intern(json));
  return *this;
}

uint32_t ArgSetBuilder::Commit() {
  if (!open_) return 0;
  open_ = false;
  ArgTable& args = model_->args;
  args.set_begin.push_back(static_cast<uint32_t>(args.key.size()));
  return static_cast<uint32_t>(args.sets() - 1);
}

uint32_t ImportContext::Thread(uint32_t process_row, uint32_t tid) {
  uint64_t key = (uint64_t{process_row} << 32) | tid;
  auto [it, inserted] = thread_index_.emplace(key, 0);
  if (!inserted) return it->second;
  ThreadTable& threads = model_->threads;
  uint32_t row = static_cast<uint32_t>(threads.size());
  threads.process.push_back(process_row);
  threads.tid.push_back(tid);
  threads.name.push_back(kNoString);
  threads.sort_index.push_back(tid);
  it->second = row;
  return row;
}

uint32_t ImportContext::MainTrack(uint32_t thread_row) {
  if (thread_row >= main_track_.size()) main_track_.resize(thread_row + 1, kNoRow);
  uint32_t& track = main_track_[thread_row];
  if (track == kNoRow) {
    track = static_cast<uint32_t>(model_->tracks.size());
    model_->tracks.thread.push_back(thread_row);
    model_->tracks.lane.push_back(0);
  }
  return track;
}

uint32_t ImportContext::DeviceProcess(int32_t device_id, std::string_view name) {
  auto [it, inserted] = device_index_.emplace(device_id, 0);
  if (!inserted) return it->second;
  const ProcessTable& p = model_->processes;
  ProcessRow row;
  row.pid = static_cast<uint32_t>(device_id);
  row.host = process_ == kNoRow ? kNoString : p.host[process_];
  row.name = Intern(name);
  row.label = Intern("GPU " + std::to_string(device_id));
  // Kineto's order: host processes by pid, then devices at 0x1000000 + id.
  row.sort_index = 0x1000000 + device_id;
  row.device_id = device_id;
  row.rank = process_ == kNoRow ? -1 : p.rank[process_];
  it->second = AppendProcess(model_->processes, row);
  return it->second;
}

void ImportContext::SetThreadName(uint32_t thread_row, StringId name) {
  model_->threads.name[thread_row] = name;
}

uint32_t ImportContext::AddSlice(uint32_t track, uint64_t ts_ticks, int64_t end_ticks,
                                 StringId name, StringId category, uint32_t args) {
  SliceTable& s = model_->slices;
  uint32_t row = static_cast<uint32_t>(s.size());
  s.ts.push_back(static_cast<int64_t>(ts_ticks));
  s.end.push_back(end_ticks);
  s.track.push_back(track);
  s.name.push_back(name);
  s.category.push_back(category);
  s.args.push_back(args);
  s.depth.push_back(0);
  s.parent.push_back(kNoRow);
  s.flags.push_back(0);
  return row;
}

void ImportContext::EndSlice(uint32_t slice, uint64_t end_ticks) {
  model_->slices.end[slice] = static_cast<int64_t>(end_ticks);
}

uint32_t ImportContext::AddInstant(uint32_t track, uint64_t ts_ticks, StringId name,
                                   StringId category, uint32_t args) {
  InstantTable& i = model_->instants;
  uint32_t row = static_cast<uint32_t>(i.size());
  i.ts.push_back(static_cast<int64_t>(ts_ticks));
  i.track.push_back(track);
  i.name.push_back(name);
  i.category.push_back(category);
  i.args.push_back(args);
  return row;
}

uint32_t ImportContext::CounterSeries(StringId name, uint32_t process_row, uint16_t scope,
                                      uint32_t instance, StringId unit) {
  CounterSeriesTable& c = model_->counter_series;
  for (size_t row = 0; row < c.size(); ++row) {
    if (c.name[row] == name && c.process[row] == process_row && c.scope[row] == scope &&
        c.instance[row] == instance) {
      return static_cast<uint32_t>(row);
    }
  }
  c.name.push_back(name);
  c.process.push_back(process_row);
  c.scope.push_back(scope);
  c.instance.push_back(instance);
  c.unit.push_back(unit);
  return static_cast<uint32_t>(c.size() - 1);
}

void ImportContext::AddCounter(uint32_t series, uint64_t ts_ticks, double value) {
  CounterTable& c = model_->counters;
  c.series.push_back(series);
  c.ts.push_back(static_cast<int64_t>(ts_ticks));
  c.value.push_back(value);
}

void ImportContext::AddFlowEndpoint(StringId category, uint64_t key, uint32_t slice,
                                    bool is_start) {
  flow_endpoints_.push_back({category, key, slice, is_start});
}

}  // namespace aiprof::model
