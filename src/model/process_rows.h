// Adding a process row: every column of model::ProcessTable set at once, so no importer can
// leave one column a row short (file_parser, the CUDA and CPU-sampling importers, the
// Kineto trace builder and the tests' hand-built models all add processes).
#pragma once

#include <cstdint>

#include "model/model.h"

namespace aiprof::model {

struct ProcessRow {
  uint32_t pid = 0;  // OS pid; for a device process the device id
  StringId host = kNoString;
  StringId name = kNoString;
  StringId label = kNoString;
  int64_t sort_index = 0;
  int32_t device_id = -1;  // -1 for host processes
  int32_t rank = -1;       // -1 when unknown
};

// Appends `row` (with empty metadata); returns its row number.
uint32_t AppendProcess(ProcessTable& processes, const ProcessRow& row);

// A host process known only by its pid, until its metadata names it: "process <pid>",
// labelled "CPU", ordered by pid (Kineto's order for host processes).
uint32_t AppendHostProcess(Model& model, uint32_t pid, StringId host);

}  // namespace aiprof::model
