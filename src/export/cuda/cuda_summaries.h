// msprof-style CSV summaries of the CUDA data in a model (written by the CUDA importer):
//   op_summary_{ts}.csv    one row per kernel (Task Type KERNEL) with launch geometry
//   task_time_{ts}.csv     kernels, copies and sets per stream
//   api_statistic_{ts}.csv CUDA runtime and driver calls, per API
//   memcpy_{ts}.csv        every copy with direction, size and bandwidth
//   npu_mem_{ts}.csv       device memory over time (npu_mem's header, GPU values)
// Column headers follow ascend-msprof-formats.md §1.4 where a file has an msprof
// counterpart; times are µs with 3 decimals, sizes as named in the header. Files without
// rows are not written.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::exporting {

std::string CudaOpSummaryCsv(const model::Model& model);
std::string CudaTaskTimeCsv(const model::Model& model);
std::string CudaApiStatisticCsv(const model::Model& model);
std::string CudaMemcpyCsv(const model::Model& model);
std::string CudaDeviceMemoryCsv(const model::Model& model);

// Writes the files above that have rows into `dir` with `timestamp` in their names and
// appends their paths to `written`. False with `error` naming the file on a write failure.
bool WriteCudaSummaries(const model::Model& model, const std::string& dir,
                        const std::string& timestamp, std::vector<std::string>* written,
                        std::string* error);

}  // namespace aiprof::exporting
