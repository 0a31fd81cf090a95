// CUDA-specific summaries, written next to the generic msprof summaries (op_summary,
// op_statistic and api_statistic already list kernels, copies and CUDA API calls; see
// src/export/csv). These add what only CUDA data has:
//   kernel_details_{ts}   one row per kernel: op_summary's leading columns plus launch
//                         geometry, registers, shared memory, occupancy, graph node
//   task_time_{ts}        kernels, copies and sets per stream (msprof task_time header)
//   memcpy_{ts}           every copy with direction, memory kinds, size and bandwidth
//   npu_mem_{ts}          device memory over time (npu_mem's header, GPU values)
// Each goes through the one SummaryWriter: CSV or JSON as --summary-format says, CSV split
// into _slice_<i> files above `row_limit` rows. Times are µs with 3 decimals. Tables
// without rows are not written.
#pragma once

#include <cstdint>

#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteCudaKernelDetails(const model::Model& model, const SummaryTarget& target,
                            uint64_t row_limit = kCsvRowLimit);
void WriteCudaTaskTime(const model::Model& model, const SummaryTarget& target,
                       uint64_t row_limit = kCsvRowLimit);
void WriteCudaMemcpy(const model::Model& model, const SummaryTarget& target,
                     uint64_t row_limit = kCsvRowLimit);
void WriteCudaDeviceMemory(const model::Model& model, const SummaryTarget& target,
                           uint64_t row_limit = kCsvRowLimit);

// All four, appending paths to target.written and failures (naming the file) to
// target.errors.
void WriteCudaSummaries(const model::Model& model, const SummaryTarget& target,
                        uint64_t row_limit = kCsvRowLimit);

}  // namespace aiprof::exporter
