// The other end of a point-to-point operation, as PyTorch's c10d dispatcher op names it.
// The backends' send/recv ranges ("gloo:send", "gloo:recv") carry only the tensor; the
// dispatcher op that issued them, `c10d::send(tensors, pg, dstRank, tag)` /
// `c10d::recv_(tensors, pg, srcRank, tag)` (torch >= 1.13), records the peer among its
// "Concrete Inputs" when shapes are recorded. The backend range starts inside that op's
// range in the same process (the work is created there, possibly on another thread).
// The number is the peer's rank in the process group the job passed: the global rank for
// the default group; for a sub-group it is the peer's rank inside that group, which the
// recorded data cannot tell apart, so consumers trust a peer only where both ends agree
// (analysis::DerivePeerWait pairs the n-th send A→B with the n-th recv from A on B).
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

class P2pPeerReader {
 public:
  explicit P2pPeerReader(const Model& model);

  // The peer of the send (`sends`) or recv backend range starting at `ts` in `process`;
  // -1 when no dispatcher op around it names one.
  int32_t PeerOf(uint32_t process, bool sends, int64_t ts) const;

 private:
  struct Issue {
    uint32_t process;
    bool sends;
    int64_t begin, end;
    int32_t peer;
  };
  std::vector<Issue> issues_;  // by (process, sends, begin)
};

}  // namespace aiprof::model
