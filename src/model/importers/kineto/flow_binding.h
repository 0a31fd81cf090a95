// Flow events ("s"/"f" of ac2g launch → kernel, fwdbwd, any category) bound to the slices
// they sit on and paired into the model's flows: a start or an "f" with "bp": "e" binds to
// the innermost slice of its thread that encloses its time (the one starting exactly then,
// as Kineto and aiprof write them, the deepest first), an "f" without it to the next slice
// starting at or after it; starts and ends pair by (category, id) within the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::model::kineto {

struct FlowEnd {
  uint32_t thread;  // ThreadTable row
  int64_t ts;       // ns, in the model's time
  uint64_t key;     // the flow's id
  StringId category;
  char phase;  // 's' start, 'f' end binding to the enclosing slice, 'F' to the next slice
};

// Appends the flows to model.flows (slices must have their nesting resolved); notes say
// how many ends lay on no slice or had no other end.
void BindFlows(Model& model, const std::vector<FlowEnd>& ends, std::vector<std::string>* notes);

}  // namespace aiprof::model::kineto
