#include "analysis/device_activity.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/input_wait.h"
#include "analysis/op_statistics.h"

namespace aiprof::analysis {
namespace {

enum CategoryKind : uint8_t { kOtherCategory, kDeviceTask, kFrameworkOp };

bool IsCommunicationName(std::string_view name) {
  return name.starts_with("nccl") || name.starts_with("hccl") ||
         name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

// The slice has an ancestor of a selected kind: it is part of that ancestor's time.
bool HasSelectedAncestor(const model::Model& model, const std::vector<uint8_t>& selected,
                         uint32_t row) {
  for (uint32_t parent = model.slices.parent[row]; parent != model::kNoRow;
       parent = model.slices.parent[parent]) {
    if (selected[parent]) return true;
  }
  return false;
}

}  // namespace

std::string_view ActivitySourceName(ActivitySource source) {
  switch (source) {
    case ActivitySource::kDevice:
      return "device kernels";
    case ActivitySource::kFrameworkOps:
      return "framework operators";
    case ActivitySource::kMarkers:
      return "marker ranges";
    case ActivitySource::kNone:
      break;
  }
  return "none";
}

std::string_view ActivityTypeName(ActivityType type) {
  switch (type) {
    case ActivityType::kCommunication:
      return "COMMUNICATION";
    case ActivityType::kMemory:
      return "MEMORY";
    case ActivityType::kComputation:
      break;
  }
  return "COMPUTATION";
}

ActivityType ClassifyActivity(std::string_view name, std::string_view category) {
  if (category == "collective_comm" || IsCommunicationName(name)) {
    return ActivityType::kCommunication;
  }
  if (category == "gpu_memcpy" || category == "gpu_memset" || name.starts_with("Memcpy") ||
      name.starts_with("Memset") || name.starts_with("dma")) {
    return ActivityType::kMemory;
  }
  return ActivityType::kComputation;
}

Activities SelectActivities(const model::Model& model) {
  const model::SliceTable& s = model.slices;
  std::vector<uint8_t> category_kind(model.strings.size(), kOtherCategory);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (IsDeviceTaskCategory(text)) category_kind[id] = kDeviceTask;
    if (text == "cpu_op" || text == "collective_comm") category_kind[id] = kFrameworkOp;
  }
  std::vector<uint8_t> device(s.size(), 0), framework(s.size(), 0), marker(s.size(), 0);
  bool any_device = false, any_framework = false;
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint8_t kind = category_kind[s.category[row]];
    const uint32_t process = model.ProcessOfThread(model.ThreadOfSlice(row));
    if (kind == kDeviceTask && model.processes.device_id[process] >= 0) {
      device[row] = 1;
      any_device = true;
    } else if (kind == kFrameworkOp) {
      framework[row] = 1;
      any_framework = true;
    }
  }
  std::vector<int8_t> input_wait(model.strings.size(), -1);
  for (size_t i = 0; i < model.markers.size(); ++i) {
    if (model.markers.is_instant[i]) continue;
    const uint32_t row = model.markers.row[i];
    int8_t& waits = input_wait[s.name[row]];
    if (waits < 0) waits = IsInputWaitName(model.Str(s.name[row])) ? 1 : 0;
    marker[row] = waits == 0;
  }
  for (uint32_t slice : model.steps.slice) {
    if (slice < s.size()) marker[slice] = 0;
  }

  Activities result;
  const std::vector<uint8_t>* selected = &marker;
  result.source = ActivitySource::kMarkers;
  if (any_device) {
    selected = &device;
    result.source = ActivitySource::kDevice;
  } else if (any_framework) {
    selected = &framework;
    result.source = ActivitySource::kFrameworkOps;
  }
  // Two passes: count each process's rows, then fill lists sized exactly, so the selection
  // never regrows a vector nor looks a process up in a tree per slice.
  std::vector<uint32_t> process_of(s.size(), model::kNoRow);
  std::vector<uint32_t> count(model.processes.size(), 0);
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (!(*selected)[row]) continue;
    if (result.source != ActivitySource::kDevice && HasSelectedAncestor(model, *selected, row)) {
      continue;
    }
    const uint32_t process = model.ProcessOfThread(model.ThreadOfSlice(row));
    process_of[row] = process;
    ++count[process];
  }
  std::vector<ActivityUnit> units(model.processes.size());
  for (uint32_t process = 0; process < units.size(); ++process) {
    units[process].process = process;
    units[process].rows.reserve(count[process]);
  }
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (process_of[row] != model::kNoRow) units[process_of[row]].rows.push_back(row);
  }
  std::unordered_map<uint64_t, ActivityType> type_of;
  for (uint32_t process = 0; process < units.size(); ++process) {
    if (count[process] == 0) continue;
    ActivityUnit& unit = units[process];
    const auto by_start = [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; };
    // Rows arrive in table order, usually already by start time: sorting is then wasted work.
    if (!std::is_sorted(unit.rows.begin(), unit.rows.end(), by_start)) {
      std::stable_sort(unit.rows.begin(), unit.rows.end(), by_start);
    }
    unit.types.reserve(unit.rows.size());
    for (uint32_t row : unit.rows) {
      // Types are decided once per (name, category) pair, not per slice.
      const uint64_t key = uint64_t{s.name[row]} << 32 | s.category[row];
      auto [it, inserted] = type_of.try_emplace(key, ActivityType::kComputation);
      if (inserted)
        it->second = ClassifyActivity(model.Str(s.name[row]), model.Str(s.category[row]));
      unit.types.push_back(it->second);
    }
    result.units.push_back(std::move(unit));
  }
  if (result.units.empty()) result.source = ActivitySource::kNone;
  return result;
}

}  // namespace aiprof::analysis
