// Framework (PyTorch) deliverables of ASCEND_PROFILER_OUTPUT, with the torch_npu headers
// (ascend-msprof-formats.md §2.3), from the model the torch importer filled:
//   operator_details.csv  one row per operator: input shapes (';' between tensors), call
//                         stack, host self and total time (device columns 0 on CPU data)
//   operator_memory.csv   one row per allocator block: the operator that allocated it,
//                         size, allocation/release time and the allocator totals then
//                         (the memory analysis' blocks: target.analyses, else computed)
//   memory_record.csv     the allocator totals at every allocator event
// Each file is written only when the model holds its data, through the SummaryWriter like
// every summary table: CSV or JSON (--summary-format), msprof's or torch_npu's file names,
// CSV split at 1,000,000 rows.
#pragma once

#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

// Writes the tables into target.dir (paths to target.written, I/O errors to target.errors).
void WriteFrameworkSummaries(const model::Model& model, const SummaryTarget& target);

}  // namespace aiprof::exporter
