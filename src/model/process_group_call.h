// The process group a communication operation ran in, where the data names it. PyTorch's
// backend ranges ("gloo:all_reduce") do not say which group they belong to; the Python
// package records each torch.distributed call on a non-default group as a range with
// Kineto's "Process Group Name" argument (torch's pg name, "4"; format/records_torch.h
// kProcessGroupBegin), and the operation's backend range starts inside it, in the same
// process (the work is created there, possibly run on another thread). An operation with
// no such range around its start ran in the default group, or in a group not recorded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

class ProcessGroupCallReader {
 public:
  explicit ProcessGroupCallReader(const Model& model);

  // The group name of the innermost recorded call in `process` holding `ts`; "" if none.
  std::string_view GroupAt(uint32_t process, int64_t ts) const;

 private:
  struct Call {
    uint32_t process;
    int64_t begin, end;
    StringId group;
  };
  const Model& model_;
  std::vector<Call> calls_;  // by (process, begin)
};

}  // namespace aiprof::model
