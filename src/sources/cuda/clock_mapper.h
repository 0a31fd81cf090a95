// Puts CUPTI timestamps on the process clock. Normally CUPTI calls aiprof_now itself
// (cuptiActivityRegisterTimestampCallback) and the mapping is the identity. Where that
// registration fails, activity is stamped with CUPTI's own ns clock and is mapped through
// a line fitted to (cuptiGetTimestamp, aiprof_now) pairs taken at start and every flush.
#pragma once

#include <cstdint>
#include <mutex>

namespace aiprof::cuda {

struct ClockMapping {
  bool identity = true;
  uint64_t cupti_anchor = 0;
  uint64_t process_anchor = 0;
  double process_ticks_per_cupti_ns = 1.0;

  uint64_t ToProcess(uint64_t cupti_ts) const {
    if (identity || cupti_ts == 0) return cupti_ts;
    const double delta = static_cast<double>(static_cast<int64_t>(cupti_ts - cupti_anchor));
    return process_anchor + static_cast<int64_t>(delta * process_ticks_per_cupti_ns);
  }
};

class ClockMapper {
 public:
  void UseIdentity();
  // One reading: CUPTI's clock and the process clock at the same moment.
  void AddSample(uint64_t cupti_ns, uint64_t process_ticks);
  ClockMapping Current() const;

 private:
  mutable std::mutex mutex_;
  ClockMapping mapping_;
  bool have_first_ = false;
  uint64_t first_cupti_ = 0;
  uint64_t first_process_ = 0;
};

}  // namespace aiprof::cuda
