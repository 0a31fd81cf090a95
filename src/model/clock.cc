#include "model/clock.h"

namespace aiprof::model {

ClockFit ClockFit::Fit(const std::vector<ClockPoint>& points, bool ticks_are_ns,
                       double nominal_hz) {
  ClockFit fit;
  fit.samples_ = points.size();
  fit.ns_per_tick_ = ticks_are_ns || nominal_hz <= 0 ? 1.0 : 1e9 / nominal_hz;
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
  fit.realtime_offset_ns_ = static_cast<int64_t>(offset_sum / points.size());
  if (ticks_are_ns) {
    fit.origin_ns_ = fit.origin_ticks_;
    return fit;
  }
  if (points.size() < 2) return fit;

  long double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const ClockPoint& p : points) {
    long double x = static_cast<int64_t>(p.ticks) - fit.origin_ticks_;
    long double y = static_cast<int64_t>(p.monotonic_raw_ns) - fit.origin_ns_;
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
  if (slope <= 0) return fit;
  fit.ns_per_tick_ = static_cast<double>(slope);
  fit.origin_ns_ += static_cast<int64_t>(intercept);
  return fit;
}

}  // namespace aiprof::model
