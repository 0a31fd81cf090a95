// Part of the memory analysis (memory.h): device copy and set traffic (gpu_memcpy /
// gpu_memset slices with their "bytes") per kind, HTA's memory subtypes, over the whole run
// and per step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/result_columns.h"
#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

struct MemoryTransferRow {
  bool whole_run = false;  // true: every transfer; false: those starting inside `step`
  uint32_t step_id = 0;    // model::StepTable row
  uint64_t step = 0;       // the user's number
  uint32_t loop = 0;       // loop ordinal (model/steps.h)
  std::string kind;  // "Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memset", "Memcpy Unknown"...
  uint64_t count = 0;
  int64_t bytes = 0;
  int64_t time_ns = 0;
};

// The columns of memory_transfers.csv and MEMORY_TRANSFER after the step, which the writers
// put first ("all" in the files, NULL in the table for the whole run; the table's loop last).
inline constexpr Column<MemoryTransferRow> kMemoryTransferColumns[] = {
    TextColumn<MemoryTransferRow>("Kind", "kind", "", kFiles | kDatabase,
                                  [](const MemoryTransferRow& t) { return t.kind; }),
    {"Count", "count", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const MemoryTransferRow& t) { return static_cast<int64_t>(t.count); }},
    {"Bytes", "bytes", "", ColumnUnit::kBytes, kFiles | kDatabase,
     [](const MemoryTransferRow& t) { return t.bytes; }},
    {"Time(us)", "duration", "durationNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const MemoryTransferRow& t) { return t.time_ns; }},
};

// Whole-run rows first (by kind), then per step (by step id, kind); empty without transfers.
std::vector<MemoryTransferRow> ComputeMemoryTransfers(const model::Model& model,
                                                      const std::vector<StepSpan>& steps);

}  // namespace aiprof::analysis
