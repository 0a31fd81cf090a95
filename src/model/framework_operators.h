// The framework operators of a model: what torch.profiler lists as FunctionEvents, the
// torch operators ("cpu_op" slices) and record_function ranges ("user_annotation":
// ProfilerStep#N, Optimizer.step#..., the user's own labels). mstx/NVTX ranges share the
// user_annotation category but are markers (MarkerTable), not operators. Every reader that
// needs "the operators" (the memory attribution, the Python API's events) takes them here.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

// Slice rows of the framework operators, ascending.
std::vector<uint32_t> FrameworkOperatorRows(const Model& model);

}  // namespace aiprof::model
