#include "analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <vector>

namespace aiprof::analysis {
namespace {

// Length of [begin, end) inside the options' window (0 if none).
int64_t InWindow(int64_t begin, int64_t end, const IdleTimeOptions& options) {
  return std::max<int64_t>(
      0, std::min(end, options.window_end_ns) - std::max(begin, options.window_begin_ns));
}

}  // namespace

IdleTimeResult ComputeIdleTime(const model::Model& model, const Activities& activities,
                               const IdleTimeOptions& options) {
  const model::SliceTable& s = model.slices;
  IdleTimeResult result;
  result.source = activities.source;

  // Launch call of each launched activity, by slice row (4 bytes a slice: a hash map of
  // millions of launches cost far more).
  std::vector<uint32_t> launch_of;
  const model::StringId ac2g = model.strings.Find("ac2g");
  for (size_t f = 0; f < model.flows.size(); ++f) {
    if (model.flows.category[f] != ac2g) continue;
    const uint32_t call = model.flows.from_slice[f], task = model.flows.to_slice[f];
    if (call >= s.size() || task >= s.size()) continue;
    if (launch_of.empty()) launch_of.assign(s.size(), model::kNoRow);
    launch_of[task] = call;
  }

  // One pass over each unit's activities (in start order, so each lane's are too), with
  // the state of every lane (stream or thread) kept aside: no per-lane copy of the rows.
  struct Lane {
    IdleTimeRow row;
    int64_t drained = INT64_MIN;  // end of everything of the lane that started before
  };
  for (const ActivityUnit& unit : activities.units) {
    std::map<uint32_t, Lane> lanes;
    uint32_t last_thread = model::kNoRow;
    Lane* lane = nullptr;
    for (uint32_t row : unit.rows) {
      const uint32_t thread = model.ThreadOfSlice(row);
      if (thread != last_thread) {
        lane = &lanes[thread];
        lane->row.process = unit.process;
        lane->row.thread = thread;
        last_thread = thread;
      }
      IdleTimeRow& r = lane->row;
      int64_t& drained = lane->drained;
      const uint32_t launch = launch_of.empty() ? model::kNoRow : launch_of[row];
      r.has_launches |= launch != model::kNoRow;
      if (drained != INT64_MIN && s.ts[row] > drained) {
        const int64_t gap = s.ts[row] - drained;
        const int64_t inside = InWindow(drained, s.ts[row], options);
        if (inside > 0 && launch != model::kNoRow && s.ts[launch] > drained) {
          r.host_wait_ns += inside;
          ++r.host_wait_intervals;
        } else if (inside > 0 && gap < options.consecutive_kernel_delay_ns) {
          r.kernel_wait_ns += inside;
          ++r.kernel_wait_intervals;
        } else if (inside > 0) {
          r.other_ns += inside;
          ++r.other_intervals;
        }
      }
      const int64_t busy_from = drained == INT64_MIN ? s.ts[row] : std::max(s.ts[row], drained);
      if (s.end[row] > busy_from) r.busy_ns += InWindow(busy_from, s.end[row], options);
      drained = drained == INT64_MIN ? s.end[row] : std::max(drained, s.end[row]);
    }
    for (auto& [thread, state] : lanes) result.lanes.push_back(state.row);
  }
  return result;
}

}  // namespace aiprof::analysis
