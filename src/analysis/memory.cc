#include "analysis/memory.h"

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/intervals.h"
#include "analysis/training_phase.h"
#include "format/records_host.h"
#include "model/framework_operators.h"
#include "model/recorded_metadata.h"

namespace aiprof::analysis {
namespace {

std::string DeviceName(int64_t device_type, int64_t device_index) {
  std::string name = device_type == 0   ? "CPU"
                     : device_type == 1 ? "CUDA"
                                        : "device" + std::to_string(device_type);
  if (device_index >= 0) name += ":" + std::to_string(device_index);
  return name;
}

// torch's DeviceType values whose memory torch.profiler counts as CPU memory (CPU, MKLDNN,
// IDEEP); every other device's is device memory (CUDA Mem).
bool IsHostDeviceType(int64_t type) {
  return type == 0 || type == 2 || type == 5;
}

struct AllocatorEvent {
  int64_t ts = 0;
  uint32_t pool = 0;
  uint32_t track = 0;
  uint32_t instant = 0;  // InstantTable row
  bool device = false;   // device memory (CUDA Mem) rather than host memory (CPU Mem)
  int64_t bytes = 0;     // > 0 allocation, < 0 free
  uint64_t addr = 0;
  int64_t freed_at = INT64_MAX;  // allocations: when the block was freed (INT64_MAX: never)
  size_t freed_by = SIZE_MAX;    // allocations: index of the free event
};

class MemoryAnalyzer {
 public:
  MemoryAnalyzer(const model::Model& model, const StepList& steps,
                 const MemoryAnalysisOptions& options)
      : model_(model), steps_(steps.steps), options_(options) {
    for (const StepSpan& step : steps_) {
      if (step.slice != model::kNoRow) step_slices_.insert(step.slice);
    }
  }

  MemoryAnalysis Run() {
    ReadAllocatorEvents();
    ReadCounterPools();
    for (MemoryPool& pool : result_.pools) FinishPool(&pool);
    AddCapacities();
    if (!events_.empty()) {
      AttributeAllocations();
    }
    AddStepRows();
    result_.transfers = ComputeMemoryTransfers(model_, steps_);
    if (!result_.transfers.empty()) result_.inputs.emplace_back("device copies");
    return std::move(result_);
  }

 private:
  void ReadAllocatorEvents() {
    const model::InstantTable& in = model_.instants;
    const model::StringId memory_name = model_.strings.Find("[memory]");
    if (memory_name == model::StringPool::kMissing) return;
    const auto key = [&](std::string_view text) { return model_.strings.Find(text); };
    const model::StringId bytes_key = key("Bytes"), addr_key = key("Addr");
    const model::StringId allocated_key = key("Total Allocated"),
                          reserved_key = key("Total Reserved");
    const model::StringId type_key = key("Device Type"), id_key = key("Device Id");
    std::map<std::tuple<uint32_t, int64_t, int64_t>, uint32_t> pool_of;
    for (uint32_t row = 0; row < in.size(); ++row) {
      if (in.name[row] != memory_name) continue;
      const model::ArgTable& args = model_.args;
      const uint32_t set = in.args[row];
      const auto found_bytes = args.Int(set, bytes_key);
      if (!found_bytes) continue;
      const int64_t bytes = *found_bytes;
      const int64_t addr = args.Int(set, addr_key).value_or(0);
      const int64_t allocated = args.Int(set, allocated_key).value_or(0);
      const int64_t reserved = args.Int(set, reserved_key).value_or(-1);
      const int64_t type = args.Int(set, type_key).value_or(0);
      const int64_t id = args.Int(set, id_key).value_or(-1);
      const uint32_t process = model_.ProcessOfThread(model_.tracks.thread[in.track[row]]);
      auto [it, inserted] = pool_of.try_emplace({process, type, id}, result_.pools.size());
      if (inserted) {
        MemoryPool pool;
        pool.name = DeviceName(type, id);
        pool.device_index = type == 0 ? -1 : static_cast<int32_t>(std::max<int64_t>(id, 0));
        pool.process = process;
        pool.source = MemoryPoolSource::kFrameworkAllocator;
        result_.pools.push_back(std::move(pool));
      }
      result_.pools[it->second].samples.push_back({in.ts[row], allocated, reserved});
      AllocatorEvent event;
      event.ts = in.ts[row];
      event.pool = it->second;
      event.track = in.track[row];
      event.instant = row;
      event.device = !IsHostDeviceType(type);
      event.bytes = bytes;
      event.addr = static_cast<uint64_t>(addr);
      events_.push_back(event);
    }
    if (!events_.empty()) result_.inputs.emplace_back("framework allocator events");
  }

  void ReadCounterPools() {
    const model::CounterSeriesTable& series = model_.counter_series;
    std::vector<int32_t> pool_of(series.size(), -1);
    bool cupti = false, nvml = false;
    for (uint32_t i = 0; i < series.size(); ++i) {
      std::string_view name = model_.Str(series.name[i]);
      const bool is_cupti = name == "Device Memory Allocated";
      const bool is_nvml = name == "GPU Memory Used";
      if (!is_cupti && !is_nvml) continue;
      const int32_t device = model_.processes.device_id[series.process[i]];
      const uint32_t index = device >= 0 ? static_cast<uint32_t>(device) : series.instance[i];
      MemoryPool pool;
      pool.device_index = static_cast<int32_t>(index);
      pool.name =
          "GPU " + std::to_string(index) + (is_cupti ? " allocated (CUPTI)" : " used (NVML)");
      pool.process = series.process[i];
      pool.source = is_cupti ? MemoryPoolSource::kCuptiAllocations : MemoryPoolSource::kNvmlUsed;
      pool_of[i] = static_cast<int32_t>(result_.pools.size());
      result_.pools.push_back(std::move(pool));
      cupti |= is_cupti;
      nvml |= is_nvml;
    }
    if (cupti) result_.inputs.emplace_back("CUPTI allocations");
    if (nvml) result_.inputs.emplace_back("NVML used memory");
    const model::CounterTable& c = model_.counters;
    for (size_t i = 0; i < c.size(); ++i) {
      const int32_t pool = pool_of[c.series[i]];
      if (pool < 0) continue;
      result_.pools[static_cast<size_t>(pool)].samples.push_back(
          {c.ts[i], static_cast<int64_t>(c.value[i]), -1});
    }
  }

  // A device pool's capacity is its device's recorded memory (the device process of the
  // pool's host with the pool's device index); the CPU pool's is the host's MemTotal: the
  // host source's samples (the largest), else what the runtime recorded at start.
  void AddCapacities() {
    const model::ProcessTable& p = model_.processes;
    const model::StringId mem_total = model_.strings.Find(format::host_counters::kMemTotal);
    std::map<model::StringId, double> host_kb;  // host → MemTotal (KB)
    if (mem_total != model::StringPool::kMissing) {
      std::vector<uint8_t> is_total(model_.counter_series.size(), 0);
      for (size_t i = 0; i < model_.counter_series.size(); ++i) {
        is_total[i] = model_.counter_series.name[i] == mem_total;
      }
      for (size_t i = 0; i < model_.counters.size(); ++i) {
        const uint32_t series = model_.counters.series[i];
        if (!is_total[series]) continue;
        double& kb = host_kb[p.host[model_.counter_series.process[series]]];
        kb = std::max(kb, model_.counters.value[i]);
      }
    }
    for (const model::HostProperties& recorded : model_.hosts) {
      double& kb = host_kb[recorded.host];
      if (kb <= 0) kb = static_cast<double>(recorded.total_memory) / 1024;
    }
    for (MemoryPool& pool : result_.pools) {
      const model::StringId host = p.host[pool.process];
      if (pool.device_index < 0) {
        if (auto found = host_kb.find(host); found != host_kb.end() && found->second > 0) {
          pool.capacity = static_cast<int64_t>(found->second * 1024);
          pool.capacity_source = "host MemTotal";
        }
        continue;
      }
      for (const model::DeviceProperties& device : model_.devices) {
        if (device.total_memory == 0 || p.host[device.process] != host ||
            p.device_id[device.process] != pool.device_index) {
          continue;
        }
        pool.capacity = static_cast<int64_t>(device.total_memory);
        pool.capacity_source = "CUDA device record";
        break;
      }
    }
  }

  static void FinishPool(MemoryPool* pool) {
    std::stable_sort(pool->samples.begin(), pool->samples.end(),
                     [](const MemorySample& a, const MemorySample& b) { return a.ts < b.ts; });
    for (const MemorySample& sample : pool->samples) {
      if (sample.allocated > pool->peak_allocated) {
        pool->peak_allocated = sample.allocated;
        pool->peak_allocated_ts = sample.ts;
      }
      pool->peak_reserved = std::max(pool->peak_reserved, sample.reserved);
    }
  }

  // Pairs frees with allocations, names the allocating operator and gives each block its
  // category; builds the top operators and the category tracks.
  void AttributeAllocations() {
    std::stable_sort(events_.begin(), events_.end(),
                     [](const AllocatorEvent& a, const AllocatorEvent& b) {
                       return a.pool != b.pool ? a.pool < b.pool : a.ts < b.ts;
                     });
    // Per pool: address → its allocation event.
    std::vector<std::unordered_map<uint64_t, size_t>> live(result_.pools.size());
    for (size_t i = 0; i < events_.size(); ++i) {
      AllocatorEvent& event = events_[i];
      auto& pool_live = live[event.pool];
      if (event.bytes > 0) {
        pool_live[event.addr] = i;
      } else if (auto found = pool_live.find(event.addr); found != pool_live.end()) {
        events_[found->second].freed_at = event.ts;
        events_[found->second].freed_by = i;
        pool_live.erase(found);
      }
    }
    const std::vector<uint32_t> operator_of_event = AttributeEventsToOperators();

    std::vector<uint8_t> wanted_tracks(model_.tracks.size(), 0);
    for (const AllocatorEvent& event : events_) wanted_tracks[event.track] = 1;
    TrainingPhases phases(model_, wanted_tracks, steps_);
    const std::vector<std::vector<Interval>> steps_of_process = StepsByProcess();

    struct OperatorKey {
      uint32_t pool;
      std::string name;
      bool operator<(const OperatorKey& o) const {
        return pool != o.pool ? pool < o.pool : name < o.name;
      }
    };
    std::map<OperatorKey, OperatorMemoryRow> operators;
    // Per pool and category: (ts, ±bytes) changes.
    std::map<std::pair<uint32_t, MemoryCategory>, std::vector<std::pair<int64_t, int64_t>>> changes;
    for (size_t i = 0; i < events_.size(); ++i) {
      const AllocatorEvent& event = events_[i];
      if (event.bytes <= 0) continue;
      const MemoryCategory category = Categorize(event, phases, steps_of_process);
      AddBlock(event, operator_of_event[i], category);
      auto& track = changes[{event.pool, category}];
      track.emplace_back(event.ts, event.bytes);
      if (event.freed_at != INT64_MAX) track.emplace_back(event.freed_at, -event.bytes);

      OperatorMemoryRow& op = operators[{event.pool, OperatorName(operator_of_event[i])}];
      ++op.allocations;
      op.allocated_bytes += event.bytes;
      op.max_allocation = std::max(op.max_allocation, event.bytes);
      if (event.freed_at != INT64_MAX) op.freed_bytes += event.bytes;
    }

    for (auto& [key, op] : operators) {
      op.name = key.name;
      op.pool = key.pool;
      result_.top_operators.push_back(std::move(op));
    }
    std::stable_sort(result_.top_operators.begin(), result_.top_operators.end(),
                     [](const OperatorMemoryRow& a, const OperatorMemoryRow& b) {
                       return a.allocated_bytes > b.allocated_bytes;
                     });
    if (result_.top_operators.size() > options_.top_operators) {
      result_.top_operators.resize(options_.top_operators);
    }

    for (auto& [key, deltas] : changes) {
      std::stable_sort(deltas.begin(), deltas.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      MemoryCategoryTrack track;
      track.pool = key.first;
      track.category = key.second;
      int64_t live_bytes = 0;
      for (size_t i = 0; i < deltas.size(); ++i) {
        live_bytes += deltas[i].second;
        if (i + 1 < deltas.size() && deltas[i + 1].first == deltas[i].first) continue;
        track.points.emplace_back(deltas[i].first, live_bytes);
        track.peak = std::max(track.peak, live_bytes);
      }
      result_.category_tracks.push_back(std::move(track));
    }
  }

  // Each allocator event's innermost framework operator (kNoRow: none), and the operators'
  // self and inclusive figures.
  std::vector<uint32_t> AttributeEventsToOperators() {
    operators_ = model::FindFrameworkOperators(model_);
    std::vector<AttributedEvent> events;
    events.reserve(events_.size());
    for (const AllocatorEvent& event : events_) {
      events.push_back({model_.tracks.thread[event.track], event.ts, event.bytes, event.device});
    }
    MemoryAttribution attribution = analysis::AttributeToOperators(model_, operators_, events);
    result_.operator_usage = std::move(attribution.operators);
    for (size_t i = 0; i < events_.size(); ++i) {
      if (attribution.operator_of_event[i] == model::kNoRow) {
        result_.events_outside_operators.push_back(events_[i].instant);
      }
    }
    std::sort(result_.events_outside_operators.begin(), result_.events_outside_operators.end());
    return std::move(attribution.operator_of_event);
  }

  // The category of the block `allocation` starts (the rules in memory.h, in order).
  MemoryCategory Categorize(const AllocatorEvent& allocation, TrainingPhases& phases,
                            const std::vector<std::vector<Interval>>& steps_of_process) {
    if (allocation.freed_at == INT64_MAX) {
      if (auto role = RecordedRole(allocation)) return *role;
    }
    const PhasesAt at = phases.At(allocation.track, allocation.ts);
    const int64_t freed_at = allocation.freed_at;
    if (at.phases & kInputPhase) return MemoryCategory::kInput;
    if (at.innermost != model::kNoRow && freed_at <= model_.slices.end[at.innermost]) {
      return MemoryCategory::kTemporary;
    }
    if (at.phases & kOptimizerPhase) {
      return freed_at > at.EndOf(kOptimizerPhase) ? MemoryCategory::kOptimizerState
                                                  : MemoryCategory::kTemporary;
    }
    if (at.phases & kBackwardPhase) {
      return freed_at > at.EndOf(kBackwardPhase) ? MemoryCategory::kGradient
                                                 : MemoryCategory::kAutograd;
    }
    if (at.phases & kForwardPhase) return MemoryCategory::kActivation;
    if (at.innermost != model::kNoRow && allocation.freed_by != SIZE_MAX) {
      // An operator outside backward and the optimizer is the forward pass, named or not.
      const AllocatorEvent& free = events_[allocation.freed_by];
      const PhasesAt freed = phases.At(free.track, free.ts);
      return (freed.phases & kBackwardPhase) ? MemoryCategory::kActivation
                                             : MemoryCategory::kTemporary;
    }
    if (freed_at == INT64_MAX && !InsideStep(steps_of_process, allocation.track, allocation.ts)) {
      return MemoryCategory::kParameter;
    }
    return MemoryCategory::kUnknown;
  }

  // The role the program recorded for the block's address when its window stopped.
  std::optional<MemoryCategory> RecordedRole(const AllocatorEvent& allocation) {
    const uint32_t process = model_.ProcessOfThread(model_.tracks.thread[allocation.track]);
    auto [found, added] = roles_of_process_.try_emplace(process);
    if (added) found->second = model::ReadTensorRoles(model_, process);
    const std::vector<model::TensorRoleAt>& roles = found->second;
    auto role =
        std::lower_bound(roles.begin(), roles.end(), model::TensorRoleAt{allocation.addr, {}});
    if (role == roles.end() || role->address != allocation.addr) return std::nullopt;
    switch (role->role) {
      case model::TensorRole::kParameter:
        return MemoryCategory::kParameter;
      case model::TensorRole::kGradient:
        return MemoryCategory::kGradient;
      case model::TensorRole::kOptimizerState:
        return MemoryCategory::kOptimizerState;
    }
    return std::nullopt;
  }

  void AddBlock(const AllocatorEvent& allocation, uint32_t op, MemoryCategory category) {
    MemoryBlock block;
    block.category = category;
    block.pool = allocation.pool;
    block.allocation = allocation.instant;
    block.op = op;
    block.bytes = allocation.bytes;
    if (allocation.freed_by != SIZE_MAX) block.release = events_[allocation.freed_by].instant;
    result_.blocks.push_back(block);
  }

  // The allocating operator's name: the innermost framework operator, step ranges passed
  // over; an aten::empty* allocation is named after the operator that called it.
  std::string OperatorName(uint32_t slice) const {
    // Index into operators_.rows, passing over step ranges.
    uint32_t op = slice == model::kNoRow ? model::kNoRow : operators_.IndexOf(slice);
    auto is_step = [&](uint32_t i) { return step_slices_.contains(operators_.rows[i]); };
    while (op != model::kNoRow && is_step(op)) op = operators_.parent[op];
    if (op == model::kNoRow) return "(no operator)";
    const model::SliceTable& s = model_.slices;
    std::string name(model_.Str(s.name[operators_.rows[op]]));
    const uint32_t parent = operators_.parent[op];
    if (name.starts_with("aten::empty") && parent != model::kNoRow && !is_step(parent)) {
      return std::string(model_.Str(s.name[operators_.rows[parent]])) + " (" + name + ")";
    }
    return name;
  }

  std::vector<std::vector<Interval>> StepsByProcess() const {
    std::vector<std::vector<Interval>> steps(model_.processes.size());
    for (const StepSpan& step : steps_) {
      steps[model_.ProcessOfThread(step.thread)].push_back({step.begin_ns, step.end_ns});
    }
    for (auto& process_steps : steps) MergeInPlace(process_steps);
    return steps;
  }

  bool InsideStep(const std::vector<std::vector<Interval>>& steps, uint32_t track,
                  int64_t ts) const {
    const uint32_t process = model_.ProcessOfThread(model_.tracks.thread[track]);
    return LengthWithin(steps[process], ts, ts + 1) > 0;
  }

  void AddStepRows() {
    // Allocator events of each framework pool, by time (events_ is sorted by pool, time).
    std::vector<std::pair<size_t, size_t>> pool_events(result_.pools.size(), {0, 0});
    for (size_t i = 0; i < events_.size(); ++i) {
      auto& range = pool_events[events_[i].pool];
      if (range.second == 0) range.first = i;
      range.second = i + 1;
    }
    std::vector<const StepSpan*> order;
    for (const StepSpan& step : steps_) order.push_back(&step);
    std::sort(order.begin(), order.end(),
              [](const StepSpan* a, const StepSpan* b) { return a->id < b->id; });
    for (const StepSpan* step : order) {
      const uint32_t process = model_.ProcessOfThread(step->thread);
      for (uint32_t p = 0; p < result_.pools.size(); ++p) {
        const MemoryPool& pool = result_.pools[p];
        if (pool.process != process && model_.processes.device_id[pool.process] < 0) continue;
        MemoryStepRow row;
        row.step_id = step->id;
        row.step = step->step;
        row.loop = step->loop;
        row.pool = p;
        row.begin_ns = step->begin_ns;
        row.end_ns = step->end_ns;
        FillStepCurve(pool, &row);
        auto [first, last] = pool_events[p];
        for (size_t e = first; e < last; ++e) {
          const AllocatorEvent& event = events_[e];
          if (event.ts < row.begin_ns || event.ts >= row.end_ns) continue;
          if (event.bytes > 0) {
            ++row.allocations;
            row.allocated_bytes += event.bytes;
          } else {
            ++row.frees;
            row.freed_bytes -= event.bytes;
          }
        }
        result_.steps.push_back(row);
      }
    }
  }

  // Values at the step's bounds and its peaks: the last sample before the step holds at
  // its start.
  static void FillStepCurve(const MemoryPool& pool, MemoryStepRow* row) {
    const auto& samples = pool.samples;
    auto it = std::upper_bound(samples.begin(), samples.end(), row->begin_ns,
                               [](int64_t t, const MemorySample& s) { return t < s.ts; });
    if (it != samples.begin()) {
      const MemorySample& before = *(it - 1);
      row->allocated_at_begin = before.allocated;
      row->peak_allocated = before.allocated;
      row->peak_reserved = before.reserved;
    }
    row->allocated_at_end = row->allocated_at_begin;
    for (; it != samples.end() && it->ts < row->end_ns; ++it) {
      row->peak_allocated = std::max(row->peak_allocated, it->allocated);
      row->peak_reserved = std::max(row->peak_reserved, it->reserved);
      row->allocated_at_end = it->allocated;
    }
  }

  const model::Model& model_;
  const std::vector<StepSpan>& steps_;
  const MemoryAnalysisOptions& options_;
  std::vector<AllocatorEvent> events_;
  model::FrameworkOperators operators_;
  std::unordered_set<uint32_t> step_slices_;
  std::unordered_map<uint32_t, std::vector<model::TensorRoleAt>> roles_of_process_;
  MemoryAnalysis result_;
};

}  // namespace

std::string_view MemoryCategoryName(MemoryCategory category) {
  switch (category) {
    case MemoryCategory::kParameter:
      return "Parameter";
    case MemoryCategory::kOptimizerState:
      return "Optimizer state";
    case MemoryCategory::kInput:
      return "Input";
    case MemoryCategory::kTemporary:
      return "Temporary";
    case MemoryCategory::kActivation:
      return "Activation";
    case MemoryCategory::kGradient:
      return "Gradient";
    case MemoryCategory::kAutograd:
      return "Autograd";
    case MemoryCategory::kUnknown:
      break;
  }
  return "Unknown";
}

std::string_view MemoryPoolSourceName(MemoryPoolSource source) {
  switch (source) {
    case MemoryPoolSource::kCuptiAllocations:
      return "CUPTI allocations";
    case MemoryPoolSource::kNvmlUsed:
      return "NVML used memory";
    case MemoryPoolSource::kFrameworkAllocator:
      break;
  }
  return "framework allocator events";
}

const OperatorMemoryUsage* MemoryAnalysis::UsageOf(uint32_t slice) const {
  auto found = std::lower_bound(
      operator_usage.begin(), operator_usage.end(), slice,
      [](const OperatorMemoryUsage& usage, uint32_t row) { return usage.slice < row; });
  return found != operator_usage.end() && found->slice == slice ? &*found : nullptr;
}

MemoryAnalysis ComputeMemoryAnalysis(const model::Model& model, const StepList& steps,
                                     const MemoryAnalysisOptions& options) {
  return MemoryAnalyzer(model, steps, options).Run();
}

}  // namespace aiprof::analysis
