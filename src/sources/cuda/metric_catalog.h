// msprof's --aic-metrics groups mapped to NVIDIA Perfworks metrics (the names the CUPTI
// range profiler and Nsight Compute take). docs/cuda.md shows the same table; the output
// column of each metric is the op_summary column name.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace aiprof::cuda {

struct MetricColumn {
  const char* column;        // op_summary column
  const char* cupti_metric;  // Perfworks metric name
};

struct MetricGroup {
  const char* msprof_name;  // --aic-metrics value
  const char* meaning;
  std::span<const MetricColumn> columns;
};

// Case-insensitive lookup; nullptr when unknown.
const MetricGroup* FindMetricGroup(std::string_view name);
// The group --l2 adds.
const MetricGroup& L2MetricGroup();
// "ArithmeticUtilization, PipeUtilization, ..." for error messages.
std::string MetricGroupNames();

}  // namespace aiprof::cuda
