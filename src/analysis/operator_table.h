// The UI's Operators and Kernels tables: per (process, device, task type, name), msprof's
// op_statistic figures (count, total, min, mean, max, and Ratio(%), the share of the
// process's summed task time, as op_statistic_*.csv has per PROF_* directory) plus what those
// figures hide: each name's self time (TaskSelfTimes: aten::linear less the aten::addmm it
// runs) and its total and self time as shares of the wall time the table covers (the run's
// extent, or one step's), which, unlike the Ratio, do not add nested calls twice.
//   Operators: the framework operators (category cpu_op; op_statistic on a CPU-only run,
//              api_statistic's Framework rows on a GPU run).
//   Kernels:   the device tasks (kernels, memcpy, memset; op_statistic on a GPU run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/op_statistics.h"
#include "analysis/run_extent.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class OperatorTableKind { kOperators, kKernels };

struct OperatorTableRow {
  uint32_t process = 0;   // ProcessTable row
  std::string device;     // op_statistic's Device_id: "host" or the device id
  std::string task_type;  // op_statistic's Core Type: "CPU", "KERNEL", "MEMCPY", "MEMSET"
  NameStatistics stats;   // count, total, self, min, mean, max and the longest call's slice
  double ratio_pct = 0;   // total / the process's summed total (op_statistic's Ratio(%))
  double wall_pct = 0;    // total / wall time
  double self_wall_pct = 0;
};

struct OperatorTable {
  int64_t begin_ns = 0;  // the wall time the shares are of
  int64_t end_ns = 0;
  std::vector<OperatorTableRow> rows;  // by total time, largest first
  int64_t wall_ns() const { return end_ns - begin_ns; }
};

// The tasks of `kind` starting inside `step_row`'s span (model::kNoRow: the whole run, whose
// wall time is `extent`).
OperatorTable ComputeOperatorTable(const model::Model& model, OperatorTableKind kind,
                                   const RunExtent& extent, uint32_t step_row = model::kNoRow);

}  // namespace aiprof::analysis
