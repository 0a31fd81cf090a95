#include "analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace aiprof::analysis {

IdleTimeResult ComputeIdleTime(const model::Model& model, const Activities& activities,
                               const IdleTimeOptions& options) {
  const model::SliceTable& s = model.slices;
  IdleTimeResult result;
  result.source = activities.source;

  // Launch call start of each launched activity.
  std::unordered_map<uint32_t, int64_t> launch_ts;
  const model::StringId ac2g = model.strings.Find("ac2g");
  for (size_t f = 0; f < model.flows.size(); ++f) {
    if (model.flows.category[f] != ac2g) continue;
    const uint32_t call = model.flows.from_slice[f], task = model.flows.to_slice[f];
    if (call < s.size() && task < s.size()) launch_ts[task] = s.ts[call];
  }

  for (const ActivityUnit& unit : activities.units) {
    std::map<uint32_t, std::vector<uint32_t>> lanes;  // thread → rows, in start order
    for (uint32_t row : unit.rows) lanes[model.ThreadOfSlice(row)].push_back(row);
    for (const auto& [thread, rows] : lanes) {
      IdleTimeRow lane;
      lane.process = unit.process;
      lane.thread = thread;
      int64_t drained = INT64_MIN;  // end of everything that started before
      for (uint32_t row : rows) {
        auto launch = launch_ts.find(row);
        lane.has_launches |= launch != launch_ts.end();
        if (drained != INT64_MIN && s.ts[row] > drained) {
          const int64_t gap = s.ts[row] - drained;
          if (launch != launch_ts.end() && launch->second > drained) {
            lane.host_wait_ns += gap;
            ++lane.host_wait_intervals;
          } else if (gap < options.consecutive_kernel_delay_ns) {
            lane.kernel_wait_ns += gap;
            ++lane.kernel_wait_intervals;
          } else {
            lane.other_ns += gap;
            ++lane.other_intervals;
          }
        }
        if (drained == INT64_MIN || s.ts[row] > drained) {
          lane.busy_ns += s.end[row] - s.ts[row];
        } else if (s.end[row] > drained) {
          lane.busy_ns += s.end[row] - drained;
        }
        drained = drained == INT64_MIN ? s.end[row] : std::max(drained, s.end[row]);
      }
      result.lanes.push_back(lane);
    }
  }
  return result;
}

}  // namespace aiprof::analysis
