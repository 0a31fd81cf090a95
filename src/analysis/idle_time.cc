#include "analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <vector>

namespace aiprof::analysis {

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
        if (launch != model::kNoRow && s.ts[launch] > drained) {
          r.host_wait_ns += gap;
          ++r.host_wait_intervals;
        } else if (gap < options.consecutive_kernel_delay_ns) {
          r.kernel_wait_ns += gap;
          ++r.kernel_wait_intervals;
        } else {
          r.other_ns += gap;
          ++r.other_intervals;
        }
      }
      if (drained == INT64_MIN || s.ts[row] > drained) {
        r.busy_ns += s.end[row] - s.ts[row];
      } else if (s.end[row] > drained) {
        r.busy_ns += s.end[row] - drained;
      }
      drained = drained == INT64_MIN ? s.end[row] : std::max(drained, s.end[row]);
    }
    for (auto& [thread, state] : lanes) result.lanes.push_back(state.row);
  }
  return result;
}

}  // namespace aiprof::analysis
