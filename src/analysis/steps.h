// The steps (iterations) every per-step analysis uses, and where they came from:
//   1. step records: prof.step() (Python), aiprofStepBegin/End (C API) — the model's
//      StepTable, shown as "ProfilerStep#N" slices;
//   2. otherwise "ProfilerStep#N" ranges recorded as plain slices (torch RecordFunction) on
//      host threads (a Kineto trace's copies on GPU streams, gpu_user_annotation, are not
//      steps);
//   3. otherwise mstx/NVTX ranges named like a step: "step 3", "Step#3", "iteration_3"
//      (case-insensitive; separators space, '#', '_', ':', '-');
//   4. otherwise none: per-step analyses then report the whole collection as one row.
// --iteration-id=N|N-M keeps the steps numbered N..M.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/filter.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class StepSource : uint8_t { kNone, kStepRecords, kProfilerStepRanges, kMarkerRanges };
// "step records (prof.step / aiprofStepBegin)", "ProfilerStep#N ranges",
// "mstx/NVTX step ranges", "none (whole collection)".
std::string_view StepSourceName(StepSource source);

struct StepSpan {
  uint64_t step = 0;
  uint32_t thread = 0;  // ThreadTable row
  uint32_t slice = 0;   // SliceTable row of the range
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

struct StepList {
  StepSource source = StepSource::kNone;
  std::vector<StepSpan> steps;  // by thread, then begin
};

// `iterations` none: all steps.
StepList FindSteps(const model::Model& model,
                   const std::optional<model::StepRange>& iterations = std::nullopt);

// Parses "ProfilerStep#12" → 12; false when `name` is no such name.
bool ParseProfilerStepName(std::string_view name, uint64_t* step);
// Parses a marker step name ("step 3", "Step#3", "iteration_3") → 3.
bool ParseMarkerStepName(std::string_view name, uint64_t* step);

}  // namespace aiprof::analysis
