// Converts a raw file's timestamps (TSC ticks or CLOCK_MONOTONIC_RAW ns) to
// CLOCK_MONOTONIC_RAW ns with a least-squares line through its ClockSync samples. The
// realtime anchor is applied later, once per host (see merge.h), so every process of a host
// shares one monotonic→realtime offset and their events line up exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aiprof::model {

struct ClockPoint {
  uint64_t ticks;
  uint64_t monotonic_raw_ns;
  uint64_t realtime_ns;
};

class ClockFit {
 public:
  // ticks_are_ns: the file's clock source is monotonic_raw. nominal_hz: the writer's TSC
  // frequency estimate, used when fewer than two samples exist (0 if unknown).
  static ClockFit Fit(const std::vector<ClockPoint>& points, bool ticks_are_ns, double nominal_hz);

  // Wrapping and clamping arithmetic: a corrupt file's ticks may be anything, and every time
  // that leaves here is in 0..kMaxTimeNs, so the realtime offset (at most as large) and the
  // sums and differences after it stay inside int64.
  int64_t ToMonotonicNs(int64_t ticks) const {
    const auto delta =
        static_cast<int64_t>(static_cast<uint64_t>(ticks) - static_cast<uint64_t>(origin_ticks_));
    double scaled = static_cast<double>(delta) * ns_per_tick_;
    scaled = scaled < -kMaxScaledNs ? -kMaxScaledNs : scaled > kMaxScaledNs ? kMaxScaledNs : scaled;
    const auto ns = static_cast<int64_t>(static_cast<uint64_t>(origin_ns_) +
                                         static_cast<uint64_t>(static_cast<int64_t>(scaled)));
    return ns < 0 ? 0 : ns > kMaxTimeNs ? kMaxTimeNs : ns;
  }
  // 2^61 ns: year 2043 of CLOCK_MONOTONIC_RAW, far beyond any real machine's uptime.
  static constexpr int64_t kMaxTimeNs = int64_t{1} << 61;
  double ns_per_tick() const { return ns_per_tick_; }
  bool has_samples() const { return samples_ > 0; }
  // Mean realtime − monotonic_raw over the samples (0 without samples).
  int64_t realtime_offset_ns() const { return realtime_offset_ns_; }
  size_t samples() const { return samples_; }

 private:
  static constexpr double kMaxScaledNs = 9.2e18;  // inside int64's range
  int64_t origin_ticks_ = 0;
  int64_t origin_ns_ = 0;
  double ns_per_tick_ = 1.0;
  int64_t realtime_offset_ns_ = 0;
  size_t samples_ = 0;
};

}  // namespace aiprof::model
