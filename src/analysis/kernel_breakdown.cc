#include "analysis/kernel_breakdown.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/op_statistics.h"

namespace aiprof::analysis {
namespace {

// Welford's running mean and squared deviations, merged with Chan's formula for "others".
struct RunningStats {
  uint64_t count = 0;
  int64_t total = 0;
  int64_t min = INT64_MAX;
  int64_t max = INT64_MIN;
  double mean = 0;
  double m2 = 0;

  void Add(int64_t value) {
    ++count;
    total += value;
    min = std::min(min, value);
    max = std::max(max, value);
    const double delta = static_cast<double>(value) - mean;
    mean += delta / static_cast<double>(count);
    m2 += delta * (static_cast<double>(value) - mean);
  }
  void Merge(const RunningStats& other) {
    if (other.count == 0) return;
    const double n = static_cast<double>(count), m = static_cast<double>(other.count);
    const double delta = other.mean - mean;
    m2 += other.m2 + delta * delta * n * m / (n + m);
    mean = (mean * n + other.mean * m) / (n + m);
    count += other.count;
    total += other.total;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
  }
};

KernelStatsRow ToRow(uint32_t process, ActivityType type, std::string name,
                     const RunningStats& stats) {
  KernelStatsRow row;
  row.process = process;
  row.type = type;
  row.name = std::move(name);
  row.count = stats.count;
  row.total_ns = stats.total;
  row.min_ns = stats.min;
  row.max_ns = stats.max;
  row.mean_ns = stats.mean;
  row.stddev_ns = std::sqrt(stats.m2 / static_cast<double>(stats.count));
  return row;
}

// "COMMUNICATION overlapping MEMORY overlapping COMPUTATION" for the set bits of `mask`.
std::string TypeSetLabel(unsigned mask) {
  static constexpr std::array<ActivityType, kActivityTypes> kOrder = {
      ActivityType::kCommunication, ActivityType::kMemory, ActivityType::kComputation};
  std::string label;
  for (ActivityType type : kOrder) {
    if ((mask & (1u << static_cast<unsigned>(type))) == 0) continue;
    if (!label.empty()) label += " overlapping ";
    label += ActivityTypeName(type);
  }
  return label;
}

// The union of one type's activities of a unit, one merged interval at a time in time order
// (AppendMerged's list, made as it is read from the activities, which are by start time).
class TypeUnionCursor {
 public:
  TypeUnionCursor(const ActivityUnit& unit, ActivityType type, const model::SliceTable& s)
      : unit_(unit), type_(type), s_(s) {
    Advance();
  }
  bool done() const { return done_; }
  const Interval& current() const { return current_; }
  void Advance() {
    done_ = true;
    for (; at_ < unit_.rows.size(); ++at_) {
      if (unit_.types[at_] != type_) continue;
      const uint32_t row = unit_.rows[at_];
      const Interval next{s_.ts[row], s_.end[row]};
      if (next.end <= next.begin) continue;
      if (done_) {
        current_ = next;
        done_ = false;
      } else if (next.begin <= current_.end) {
        current_.end = std::max(current_.end, next.end);
      } else {
        return;
      }
    }
  }

 private:
  const ActivityUnit& unit_;
  ActivityType type_;
  const model::SliceTable& s_;
  size_t at_ = 0;
  Interval current_;
  bool done_ = true;
};

void AddUnitBreakdown(const model::Model& model, const ActivityUnit& unit,
                      const KernelBreakdownOptions& options, KernelBreakdownResult* result) {
  const model::SliceTable& s = model.slices;
  // One walk over the activities fills the per-name statistics (a slot per name id, no
  // hashing per activity).
  std::array<std::vector<std::pair<model::StringId, RunningStats>>, kActivityTypes> stats;
  std::vector<int32_t> slot(model.strings.size() * kActivityTypes, -1);
  for (size_t i = 0; i < unit.rows.size(); ++i) {
    const uint32_t row = unit.rows[i];
    const size_t type = static_cast<size_t>(unit.types[i]);
    const int64_t begin = s.ts[row], end = s.end[row];
    const model::StringId name = s.name[row];
    int32_t& at = slot[name * kActivityTypes + type];
    if (at < 0) {
      at = static_cast<int32_t>(stats[type].size());
      stats[type].emplace_back(name, RunningStats{});
    }
    stats[type][static_cast<size_t>(at)].second.Add(end - begin);
  }
  // Sweep over the per-type unions together (each is ordered and disjoint, read as it is
  // merged): every edge sets or clears its type's bit, and the time until the next edge goes
  // to the active set.
  std::array<TypeUnionCursor, kActivityTypes> unions = {
      TypeUnionCursor(unit, ActivityType::kComputation, s),
      TypeUnionCursor(unit, ActivityType::kCommunication, s),
      TypeUnionCursor(unit, ActivityType::kMemory, s)};
  std::array<int64_t, kActivityTypes> union_length{};
  std::array<int64_t, 1u << kActivityTypes> time_of_set{};
  std::array<bool, kActivityTypes> inside{};
  unsigned mask = 0;
  int64_t previous = 0, first_ns = 0;
  bool started = false;
  for (;;) {
    int next = -1;
    int64_t next_ns = INT64_MAX;
    for (int t = 0; t < kActivityTypes; ++t) {
      if (unions[t].done()) continue;
      const int64_t edge_ns = inside[t] ? unions[t].current().end : unions[t].current().begin;
      if (edge_ns < next_ns) {
        next_ns = edge_ns;
        next = t;
      }
    }
    if (next < 0) break;
    if (!started) {
      first_ns = next_ns;
      started = true;
    } else if (mask != 0) {
      time_of_set[mask] += next_ns - previous;
    }
    previous = next_ns;
    if (inside[next]) {
      mask &= ~(1u << next);
      union_length[next] += unions[next].current().length();
      unions[next].Advance();
    } else {
      mask |= 1u << next;
    }
    inside[next] = !inside[next];
  }
  if (!started) return;
  const size_t first_type_row = result->type_time.size();
  for (unsigned set = 1; set < time_of_set.size(); ++set) {
    if (time_of_set[set] > 0) {
      result->type_time.push_back({unit.process, TypeSetLabel(set), time_of_set[set], set});
    }
  }
  std::stable_sort(result->type_time.begin() + static_cast<std::ptrdiff_t>(first_type_row),
                   result->type_time.end(), [](const TypeTimeRow& a, const TypeTimeRow& b) {
                     return a.time_ns > b.time_ns;
                   });

  // Temporal breakdown: the busy time (|union of all|) is the time any type set was active.
  int64_t busy = 0;
  for (int64_t time : time_of_set) busy += time;
  TemporalBreakdownRow temporal;
  temporal.process = unit.process;
  temporal.span_ns = previous - first_ns;  // the last edge is the last end
  temporal.idle_ns = temporal.span_ns - busy;
  temporal.compute_ns = union_length[static_cast<size_t>(ActivityType::kComputation)];
  temporal.non_compute_ns = temporal.span_ns - temporal.compute_ns - temporal.idle_ns;
  result->temporal.push_back(temporal);

  // The top names of each type.
  for (int t = 0; t < kActivityTypes; ++t) {
    std::vector<std::pair<model::StringId, RunningStats>>& names = stats[t];
    std::sort(names.begin(), names.end(), [&](const auto& a, const auto& b) {
      if (a.second.total != b.second.total) return a.second.total > b.second.total;
      return model.Str(a.first) < model.Str(b.first);
    });
    int64_t type_total = 0;
    for (const auto& [name, entry] : names) type_total += entry.total;
    RunningStats others;
    int64_t covered = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      const bool kept =
          i < options.top_kernels &&
          static_cast<double>(covered) < options.duration_ratio * static_cast<double>(type_total);
      covered += names[i].second.total;
      if (kept) {
        result->top_kernels.push_back(ToRow(unit.process, static_cast<ActivityType>(t),
                                            std::string(model.Str(names[i].first)),
                                            names[i].second));
      } else {
        others.Merge(names[i].second);
      }
    }
    if (others.count > 0) {
      result->top_kernels.push_back(
          ToRow(unit.process, static_cast<ActivityType>(t), "others", others));
    }
  }
}

void AddLaunchStatistics(const model::Model& model, const KernelBreakdownOptions& options,
                         KernelBreakdownResult* result) {
  const model::SliceTable& s = model.slices;
  const model::StringId ac2g = model.strings.Find("ac2g");
  if (ac2g == model::StringPool::kMissing) return;
  std::unordered_map<model::StringId, bool> is_launch;
  std::unordered_map<model::StringId, bool> is_device_task;
  LaunchStatistics& stats = result->launches;
  for (size_t f = 0; f < model.flows.size(); ++f) {
    if (model.flows.category[f] != ac2g) continue;
    const uint32_t call = model.flows.from_slice[f], task = model.flows.to_slice[f];
    if (call >= s.size() || task >= s.size()) continue;
    auto [launch, new_name] = is_launch.try_emplace(s.name[call], false);
    if (new_name) {
      std::string_view name = model.Str(s.name[call]);
      launch->second = name.find("Launch") != std::string_view::npos ||
                       name.find("MemcpyAsync") != std::string_view::npos ||
                       name.find("MemsetAsync") != std::string_view::npos;
    }
    auto [device, new_category] = is_device_task.try_emplace(s.category[task], false);
    if (new_category) device->second = IsDeviceTaskCategory(model.Str(s.category[task]));
    if (!launch->second || !device->second) continue;
    result->has_launch_flows = true;
    LaunchOutlier launch_row{call,
                             task,
                             s.dur(call),
                             s.dur(task),
                             std::max<int64_t>(0, s.ts[task] - s.end[call]),
                             s.ts[call],
                             s.ts[task]};
    ++stats.launches;
    stats.total_launch_delay_ns += launch_row.launch_delay_ns;
    stats.max_launch_delay_ns = std::max(stats.max_launch_delay_ns, launch_row.launch_delay_ns);
    if (launch_row.cpu_duration_ns <= options.runtime_cutoff_ns &&
        launch_row.gpu_duration_ns < launch_row.cpu_duration_ns) {
      ++stats.short_kernels;
    }
    if (launch_row.cpu_duration_ns > options.runtime_cutoff_ns) ++stats.runtime_outliers;
    if (launch_row.launch_delay_ns > options.launch_delay_cutoff_ns) {
      ++stats.launch_delay_outliers;
      stats.largest_delays.push_back(launch_row);
    }
  }
  std::stable_sort(stats.largest_delays.begin(), stats.largest_delays.end(),
                   [](const LaunchOutlier& a, const LaunchOutlier& b) {
                     return a.launch_delay_ns > b.launch_delay_ns;
                   });
  if (stats.largest_delays.size() > options.max_outliers) {
    stats.largest_delays.resize(options.max_outliers);
  }
}

}  // namespace

CommunicationOverlap CommunicationOverlapOf(const KernelBreakdownResult& result, uint32_t process) {
  const unsigned communication = 1u << static_cast<unsigned>(ActivityType::kCommunication);
  const unsigned computation = 1u << static_cast<unsigned>(ActivityType::kComputation);
  CommunicationOverlap overlap;
  for (const TypeTimeRow& row : result.type_time) {
    if (row.process != process || (row.types & communication) == 0) continue;
    overlap.communication_ns += row.time_ns;
    if (row.types & computation) overlap.overlapped_ns += row.time_ns;
  }
  return overlap;
}

KernelBreakdownResult ComputeKernelBreakdown(const model::Model& model,
                                             const Activities& activities,
                                             const KernelBreakdownOptions& options) {
  KernelBreakdownResult result;
  result.source = activities.source;
  for (const ActivityUnit& unit : activities.units) {
    AddUnitBreakdown(model, unit, options, &result);
  }
  // Each type row's whole: its process's time over every type set.
  std::map<uint32_t, int64_t> process_time;
  for (const TypeTimeRow& row : result.type_time) process_time[row.process] += row.time_ns;
  for (TypeTimeRow& row : result.type_time) row.process_time_ns = process_time[row.process];
  AddLaunchStatistics(model, options, &result);
  return result;
}

}  // namespace aiprof::analysis
