#include "analysis/device_activity.h"

#include <algorithm>

#include "analysis/input_wait.h"
#include "analysis/op_statistics.h"
#include "analysis/run_sort.h"
#include "model/huge_pages.h"

namespace aiprof::analysis {
namespace {

enum CategoryKind : uint8_t { kOtherCategory, kDeviceTask, kFrameworkOp };

bool IsCommunicationName(std::string_view name) {
  return name.starts_with("nccl") || name.starts_with("hccl") ||
         name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

// HTA's kernel type, from what the name and the category each say (first match wins:
// communication, then memory, then computation).
enum TypeHint : int8_t { kUnknownHint = -1, kNoHint, kCommunicationHint, kMemoryHint };

TypeHint NameTypeHint(std::string_view name) {
  if (IsCommunicationName(name)) return kCommunicationHint;
  if (name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma")) {
    return kMemoryHint;
  }
  return kNoHint;
}

TypeHint CategoryTypeHint(std::string_view category) {
  if (category == "collective_comm") return kCommunicationHint;
  if (category == "gpu_memcpy" || category == "gpu_memset") return kMemoryHint;
  return kNoHint;
}

ActivityType TypeOfHints(TypeHint name, TypeHint category) {
  if (name == kCommunicationHint || category == kCommunicationHint) {
    return ActivityType::kCommunication;
  }
  if (name == kMemoryHint || category == kMemoryHint) return ActivityType::kMemory;
  return ActivityType::kComputation;
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

Activities SelectActivities(const model::Model& model) {
  const model::SliceTable& s = model.slices;
  std::vector<uint8_t> category_kind(model.strings.size(), kOtherCategory);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (IsDeviceTaskCategory(text)) category_kind[id] = kDeviceTask;
    if (text == "cpu_op" || text == "collective_comm") category_kind[id] = kFrameworkOp;
  }
  // Per track, not per slice: its process, and whether that is a device.
  std::vector<uint32_t> track_process(model.tracks.size());
  std::vector<uint8_t> on_device(model.tracks.size());
  for (uint32_t t = 0; t < model.tracks.size(); ++t) {
    track_process[t] = model.ProcessOfThread(model.tracks.thread[t]);
    on_device[t] = model.processes.device_id[track_process[t]] >= 0;
  }
  // A device-task category counts only on a device process.
  const auto kind_of = [&](uint32_t row) {
    const uint8_t kind = category_kind[s.category[row]];
    return kind == kDeviceTask && !on_device[s.track[row]] ? uint8_t{kOtherCategory} : kind;
  };
  bool any_device = false, any_framework = false;
  for (uint32_t row = 0; row < s.size() && !any_device; ++row) {
    const uint8_t kind = kind_of(row);
    any_device = kind == kDeviceTask;
    any_framework |= kind == kFrameworkOp;
  }

  Activities result;
  result.source = any_device      ? ActivitySource::kDevice
                  : any_framework ? ActivitySource::kFrameworkOps
                                  : ActivitySource::kMarkers;
  // Marker ranges only when nothing else is there: the only source kept per slice.
  std::vector<uint8_t> marker;
  if (result.source == ActivitySource::kMarkers) {
    model::AssignOnHugePages(marker, s.size(), uint8_t{0});
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
  }
  const auto selected = [&](uint32_t row) {
    switch (result.source) {
      case ActivitySource::kDevice:
        return kind_of(row) == kDeviceTask;
      case ActivitySource::kFrameworkOps:
        return category_kind[s.category[row]] == kFrameworkOp;
      default:
        return marker[row] != 0;
    }
  };
  // Outside devices only the outermost selected slices count: a nested one is part of its
  // ancestor's time.
  const auto taken = [&](uint32_t row) {
    if (!selected(row)) return false;
    if (result.source == ActivitySource::kDevice) return true;
    for (uint32_t parent = s.parent[row]; parent != model::kNoRow; parent = s.parent[parent]) {
      if (selected(parent)) return false;
    }
    return true;
  };
  // Each process's activities are noted as the table's sorted runs (run_sort.h), then read by
  // start time into a list of their exact size: neither a per-slice list nor a sort buffer.
  std::vector<TableRuns> runs(model.processes.size());
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (taken(row)) runs[track_process[s.track[row]]].Add(row, s.ts[row]);
  }
  std::vector<ActivityUnit> units(model.processes.size());
  for (uint32_t process = 0; process < units.size(); ++process) {
    if (runs[process].count == 0) continue;
    ActivityUnit& unit = units[process];
    unit.process = process;
    const auto kept = [&](uint32_t row) {
      return track_process[s.track[row]] == process && taken(row);
    };
    const auto by_start = [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; };
    if (runs[process].ShortRuns()) {
      unit.rows = RowsOfRuns(runs[process], kept);
      StableSortRuns(unit.rows, by_start);
    } else {
      model::ReserveOnHugePages(unit.rows, runs[process].count);
      MergeRuns(
          runs[process], kept, [&s](uint32_t row) { return s.ts[row]; },
          [&unit](uint32_t row) { unit.rows.push_back(row); });
    }
    runs[process] = {};
  }
  std::vector<uint8_t>().swap(marker);
  // Types are decided once per name and once per category, not per slice.
  std::vector<TypeHint> name_hint(model.strings.size(), kUnknownHint);
  std::vector<TypeHint> category_hint(model.strings.size(), kUnknownHint);
  for (uint32_t process = 0; process < units.size(); ++process) {
    ActivityUnit& unit = units[process];
    if (unit.rows.empty()) continue;
    model::ReserveOnHugePages(unit.types, unit.rows.size());
    for (uint32_t row : unit.rows) {
      TypeHint& name = name_hint[s.name[row]];
      if (name == kUnknownHint) name = NameTypeHint(model.Str(s.name[row]));
      TypeHint& category = category_hint[s.category[row]];
      if (category == kUnknownHint) category = CategoryTypeHint(model.Str(s.category[row]));
      unit.types.push_back(TypeOfHints(name, category));
    }
    result.units.push_back(std::move(unit));
  }
  if (result.units.empty()) result.source = ActivitySource::kNone;
  return result;
}

}  // namespace aiprof::analysis
