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
  int64_t min_ns = INT64_MAX;
  int64_t max_ns = 0;
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
std::string DeviceColumnOf(const model::Model& model, uint32_t slice);
TaskGroups GroupByDeviceAndTaskType(const model::Model& model, const std::vector<uint32_t>& rows);

// Groups `rows` by (slice name, groups[i]); sorted by total time, largest first.
std::vector<NameStatistics> StatisticsByNameAndGroup(const model::Model& model,
                                                     const std::vector<uint32_t>& rows,
                                                     const std::vector<uint32_t>& groups);

}  // namespace aiprof::analysis
