// Part of the memory analysis (memory.h): allocator events attributed to the framework
// operators (model/framework_operators.h) running on their thread when they happened, as
// torch.profiler's memory columns count them. An event counts for the innermost operator
// around it on its thread, the latest-started one whose interval holds it (that operator's
// self memory), and for every operator enclosing that one in the operators' nesting (its
// inclusive memory); an allocation adds its bytes, a free subtracts them.
// torch.profiler 1.13 matches events to operators by time alone, on any thread; here only
// the allocating thread's operators count, so a concurrent thread's allocations are not
// charged to another thread's operators.
#pragma once

#include <cstdint>
#include <vector>

#include "model/framework_operators.h"
#include "model/model.h"

namespace aiprof::analysis {

struct OperatorMemoryUsage {
  uint32_t slice = 0;             // SliceTable row of the operator
  int64_t self_host_bytes = 0;    // torch's Self CPU Mem
  int64_t host_bytes = 0;         // CPU Mem (inclusive)
  int64_t self_device_bytes = 0;  // Self CUDA Mem
  int64_t device_bytes = 0;       // CUDA Mem (inclusive)
  uint32_t host_events = 0;       // allocator events inside the operator (inclusive)
  uint32_t device_events = 0;
};

// One allocator event to attribute: where and when, and its signed size.
struct AttributedEvent {
  uint32_t thread = 0;  // ThreadTable row of the event
  int64_t ts = 0;
  int64_t bytes = 0;    // > 0 allocation, < 0 free
  bool device = false;  // a device pool (CUDA) rather than host memory
};

struct MemoryAttribution {
  std::vector<uint32_t> operator_of_event;     // per event: slice row, kNoRow outside them
  std::vector<OperatorMemoryUsage> operators;  // ascending slice; only those with events
};

MemoryAttribution AttributeToOperators(const model::Model& model,
                                       const model::FrameworkOperators& operators,
                                       const std::vector<AttributedEvent>& events);

}  // namespace aiprof::analysis
