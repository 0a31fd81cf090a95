// CUDA-specific CSV summaries, written next to the generic msprof summaries (op_summary,
// op_statistic and api_statistic already list kernels, copies and CUDA API calls; see
// src/export/csv). These add what only CUDA data has:
//   kernel_details_{ts}.csv  one row per kernel: op_summary's leading columns plus launch
//                            geometry, registers, shared memory, occupancy, graph node
//   task_time_{ts}.csv       kernels, copies and sets per stream (msprof task_time header)
//   memcpy_{ts}.csv          every copy with direction, memory kinds, size and bandwidth
//   npu_mem_{ts}.csv         device memory over time (npu_mem's header, GPU values)
// Times are µs with 3 decimals. Files without rows are not written.
#pragma once

#include <string>

#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

std::string CudaKernelDetailsCsv(const model::Model& model);
std::string CudaTaskTimeCsv(const model::Model& model);
std::string CudaMemcpyCsv(const model::Model& model);
std::string CudaDeviceMemoryCsv(const model::Model& model);

// Writes the files above that have rows into target.dir (CSV whatever target.format says:
// these tables have no JSON form yet), appending paths to target.written and failures
// (naming the file) to target.errors.
void WriteCudaSummaries(const model::Model& model, const exporter::SummaryTarget& target);

}  // namespace aiprof::exporter
