// The compute classification (overlap.h, ClassifyComputeSlices: what each slice counts as for
// Computing) held in 2 bits a slice instead of a byte: for the critical path's run index
// (critical_path/run_index.h), which builds it beside the model in the UI server, where the
// peak memory is the model's size. The same classification, computed by the same code
// (overlap.cc's ClassifyInto).
#pragma once

#include <vector>

#include "analysis/overlap.h"
#include "analysis/packed_codes.h"

namespace aiprof::analysis {

struct PackedComputeClassification {
  PackedCodes kind;         // ComputeSliceKind per slice
  bool device_run = false;  // device tasks exist: Computing is the devices' tasks
};
PackedComputeClassification ClassifyComputeSlicesPacked(const model::Model& model,
                                                        const std::vector<model::CommOp>& comm);

}  // namespace aiprof::analysis
