#include "sources/cuda/clock_mapper.h"

namespace aiprof::cuda {

void ClockMapper::UseIdentity() {
  std::lock_guard<std::mutex> lock(mutex_);
  mapping_ = ClockMapping{};
}

void ClockMapper::AddSample(uint64_t cupti_ns, uint64_t process_ticks) {
  std::lock_guard<std::mutex> lock(mutex_);
  mapping_.identity = false;
  if (!have_first_) {
    have_first_ = true;
    first_cupti_ = cupti_ns;
    first_process_ = process_ticks;
  } else if (cupti_ns > first_cupti_ && process_ticks > first_process_) {
    // The slope between the first and the latest reading: the longer the baseline, the
    // smaller the effect of the reading jitter.
    mapping_.process_ticks_per_cupti_ns = static_cast<double>(process_ticks - first_process_) /
                                          static_cast<double>(cupti_ns - first_cupti_);
  }
  mapping_.cupti_anchor = cupti_ns;
  mapping_.process_anchor = process_ticks;
}

ClockMapping ClockMapper::Current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mapping_;
}

}  // namespace aiprof::cuda
