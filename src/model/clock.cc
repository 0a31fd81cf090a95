#include "model/clock.h"

#include <algorithm>
#include <cmath>

namespace aiprof::model {

ClockFit ClockFit::Fit(const std::vector<ClockPoint>& points, bool ticks_are_ns,
                       double nominal_hz) {
  ClockFit fit;
  fit.samples_ = points.size();
  fit.ns_per_tick_ = ticks_are_ns || !(nominal_hz > 0) || !std::isfinite(1e9 / nominal_hz)
                         ? 1.0
                         : 1e9 / nominal_hz;
  if (points.empty()) return fit;

  // Work relative to the first sample: absolute TSC and ns values are ~1e15..1e18, far
  // beyond what a double holds to the nanosecond, while the deltas are small.
  fit.origin_ticks_ = static_cast<int64_t>(points.front().ticks);
  fit.origin_ns_ = static_cast<int64_t>(points.front().monotonic_raw_ns);
  long double offset_sum = 0;
  for (const ClockPoint& p : points) {
    offset_sum +=
        static_cast<long double>(static_cast<int64_t>(p.realtime_ns - p.monotonic_raw_ns));
  }
  // Realtime minus monotonic is about the boot time (~2^60.6 ns); a corrupt sample's is kept
  // within the range of times (see ToMonotonicNs).
  const long double offset = offset_sum / points.size();
  fit.realtime_offset_ns_ = static_cast<int64_t>(
      std::clamp<long double>(offset, -static_cast<long double>(kMaxTimeNs), kMaxTimeNs));
  if (ticks_are_ns) {
    fit.origin_ns_ = fit.origin_ticks_;
    return fit;
  }
  if (points.size() < 2) return fit;

  long double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const ClockPoint& p : points) {
    long double x = static_cast<long double>(static_cast<int64_t>(p.ticks)) - fit.origin_ticks_;
    long double y =
        static_cast<long double>(static_cast<int64_t>(p.monotonic_raw_ns)) - fit.origin_ns_;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  long double n = points.size();
  long double denominator = n * sxx - sx * sx;
  if (denominator <= 0) return fit;
  long double slope = (n * sxy - sx * sy) / denominator;
  long double intercept = (sy - slope * sx) / n;
  // A corrupt file's samples may give anything: only a finite, positive slope is a clock.
  if (!(slope > 0) || !std::isfinite(static_cast<double>(slope)) ||
      !std::isfinite(static_cast<double>(intercept)) || std::fabs(intercept) > 9.2e18L) {
    return fit;
  }
  fit.ns_per_tick_ = static_cast<double>(slope);
  fit.origin_ns_ = static_cast<int64_t>(static_cast<uint64_t>(fit.origin_ns_) +
                                        static_cast<uint64_t>(static_cast<int64_t>(intercept)));
  return fit;
}

}  // namespace aiprof::model
