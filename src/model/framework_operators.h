// The framework operators of a model: what torch.profiler lists as FunctionEvents, the
// torch operators ("cpu_op" slices) and record_function ranges ("user_annotation":
// ProfilerStep#N, Optimizer.step#..., the user's own labels). mstx/NVTX ranges and step
// records (prof.step() without a schedule, aiprofStepBegin: "ProfilerStep#N" too) share the
// user_annotation category but are markers and steps, not operators; torch lists neither. Every
// reader that needs "the operators" (the memory attribution, the Python API's events) takes them
// here, with their nesting.
//
// Nesting is torch's (EventList._populate_cpu_children), per thread and by time alone: an
// operator's parent is the latest-started operator of its thread whose interval holds it.
// The model's own slice nesting is per track, and a thread's slices that break it (a Python
// frame ending inside a ProfilerStep range with with_stack) sit on another lane of the
// thread; the operators still nest across lanes.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

struct FrameworkOperators {
  std::vector<uint32_t> rows;    // SliceTable rows, ascending
  std::vector<uint32_t> parent;  // per rows[i]: index into rows of its parent, kNoRow at the top
  // Index into rows of SliceTable row `slice`, kNoRow when it is no operator.
  uint32_t IndexOf(uint32_t slice) const;
  size_t size() const { return rows.size(); }
};

FrameworkOperators FindFrameworkOperators(const Model& model);

// Each operator's self time as torch computes it (FunctionEvent.self_cpu_time_total): its
// duration less its children's, indexed like `operators.rows`. The one self-time computation
// of the framework operators: the Python API's events and key_averages, the UI's Operators
// table and the advice's operator facts read it.
std::vector<int64_t> OperatorSelfTimes(const Model& model, const FrameworkOperators& operators);

}  // namespace aiprof::model
