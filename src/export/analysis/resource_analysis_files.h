// The data-preparation, memory, kernel and idle-time analysis files, written beside the
// step and overlap files in aiprof_output/analysis/ (docs/analysis.md explains every column;
// HTA's column names where it has them, times in µs, memory in bytes):
//   data_preparation.csv          per step: input wait, its share, loader time, empty queue
//   data_preparation_summary.csv  one row: the whole run, and which inputs were found
//   memory_analysis.csv           per memory pool: source and peaks
//   memory_steps.csv              per step and pool: values at the bounds, peaks, allocs/frees
//   operator_memory_top.csv       top operators by allocated bytes
//   memory_category_timeline.csv  live bytes per pool and category, change points
//   memory_transfers.csv          device copies/sets per kind, whole run and per step
//   temporal_breakdown.csv        per device (host process on CPU-only runs): idle/compute/
//                                 non-compute time (HTA get_temporal_breakdown)
//   kernel_type_breakdown.csv     time per kernel type set, overlap counted once
//   kernel_breakdown.csv          top kernels (operators) per type, the rest as "others"
//   idle_time_breakdown.csv       per stream (host thread): host/kernel/other wait
//   cuda_launch_statistics.csv    one row: launches, short kernels, outliers (CUDA runs)
//   launch_delay_outliers.csv     the largest launch delays (CUDA runs)
// A file is written only when its analysis found its inputs.
#pragma once

#include <string>

#include "analysis/analysis_set.h"
#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteResourceAnalysisFiles(const model::Model& model, const analysis::AnalysisSet& set,
                                const SummaryTarget& target);

// "0" for a device process (its device id), "host:<pid>" for a host process.
std::string ProcessDeviceId(const model::Model& model, uint32_t process);

}  // namespace aiprof::exporter
