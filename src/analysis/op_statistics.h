// Compute tasks and per-name duration statistics (op_summary, op_statistic, api_statistic).
// On a GPU run the compute tasks are device kernels/memcpys; on a CPU-only run they are the
// framework operators (cpu_op), as msprof reports with Task Type / Core Type "CPU".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

enum class TaskSource { kNone, kDevice, kFramework };

struct ComputeTasks {
  TaskSource source = TaskSource::kNone;
  std::vector<uint32_t> rows;  // slice rows, by start time
};

bool IsDeviceTaskCategory(std::string_view category);  // kernel, gpu_memcpy, gpu_memset
ComputeTasks SelectComputeTasks(const model::Model& model);

// Task Type column: "CPU" for framework ops, "KERNEL"/"MEMCPY"/"MEMSET" for device tasks.
std::string_view TaskTypeOf(const model::Model& model, uint32_t slice);

struct NameStatistics {
  model::StringId name = 0;
  uint32_t group = 0;  // caller-defined group index (core type, API level)
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;  // total less nested tasks' time (TaskSelfTimes); = total without them
  int64_t min_ns = INT64_MAX;
  int64_t max_ns = 0;
  uint32_t max_row = model::kNoRow;  // the slice of the longest call
  double mean_ns = 0;
  double m2 = 0;  // Welford's running sum of squared deviations
  double variance_ns2() const { return count > 0 ? m2 / static_cast<double>(count) : 0; }
};

// op_statistic's groups: (device column "host" or the device id, Task Type), one id per
// distinct pair in first-seen order; names[id] is "device\ttask type".
struct TaskGroups {
  std::vector<uint32_t> group_of_row;  // parallel to the rows given
  std::vector<std::string> names;
};
// op_statistic's Ratio(%): each entry's total as a percentage of the entries' summed total.
double RatioOfSummedTotal(int64_t total_ns, int64_t summed_total_ns);

std::string DeviceColumnOf(const model::Model& model, uint32_t slice);
TaskGroups GroupByDeviceAndTaskType(const model::Model& model, const std::vector<uint32_t>& rows);

// Per row of `rows` (compute tasks), its self time: a framework operator's is torch's
// (model::OperatorSelfTimes: aten::linear less the aten::addmm it runs); a device task's is
// its duration (kernels do not nest).
std::vector<int64_t> TaskSelfTimes(const model::Model& model, const std::vector<uint32_t>& rows);

// Groups `rows` by (slice name, groups[i]); sorted by total time, largest first. With
// `self_times` (TaskSelfTimes of `rows`), each group's self time is their sum; without, it is
// its total.
std::vector<NameStatistics> StatisticsByNameAndGroup(
    const model::Model& model, const std::vector<uint32_t>& rows,
    const std::vector<uint32_t>& groups, const std::vector<int64_t>* self_times = nullptr);

}  // namespace aiprof::analysis
