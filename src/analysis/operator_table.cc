#include "analysis/operator_table.h"

#include <map>
#include <tuple>

namespace aiprof::analysis {

OperatorTable ComputeOperatorTable(const model::Model& m, OperatorTableKind kind,
                                   const RunExtent& extent, uint32_t step_row) {
  const model::SliceTable& s = m.slices;
  OperatorTable table;
  table.begin_ns = extent.begin_ns;
  table.end_ns = extent.end_ns;
  if (step_row != model::kNoRow) {
    table.begin_ns = m.steps.ts[step_row];
    table.end_ns = m.steps.end[step_row];
  }
  std::vector<uint8_t> wanted(m.strings.size(), 0);
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    const std::string_view category = m.strings.Get(id);
    wanted[id] =
        kind == OperatorTableKind::kKernels ? IsDeviceTaskCategory(category) : category == "cpu_op";
  }
  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (!wanted[s.category[row]]) continue;
    if (step_row != model::kNoRow && (s.ts[row] < table.begin_ns || s.ts[row] >= table.end_ns)) {
      continue;
    }
    rows.push_back(row);
  }
  // Groups: (process, device column, task type), numbered in first-seen order.
  std::map<std::tuple<uint32_t, std::string, std::string>, uint32_t> ids;
  std::vector<std::tuple<uint32_t, std::string, std::string>> keys;
  std::vector<uint32_t> groups(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto key = std::tuple(m.ProcessOfThread(m.ThreadOfSlice(rows[i])), DeviceColumnOf(m, rows[i]),
                          std::string(TaskTypeOf(m, rows[i])));
    auto [it, inserted] = ids.emplace(key, static_cast<uint32_t>(keys.size()));
    if (inserted) keys.push_back(key);
    groups[i] = it->second;
  }
  const std::vector<int64_t> self = TaskSelfTimes(m, rows);
  std::vector<NameStatistics> stats = StatisticsByNameAndGroup(m, rows, groups, &self);
  // The Ratio's denominator is what one PROF_* directory's op_statistic sums: a host
  // process's own tasks, or the device tasks of one host and rank (its GPUs).
  auto ratio_key = [&](uint32_t process) {
    return m.processes.device_id[process] < 0
               ? std::tuple(process, model::kNoString, int32_t{0})
               : std::tuple(model::kNoRow, m.processes.host[process], m.processes.rank[process]);
  };
  std::map<std::tuple<uint32_t, model::StringId, int32_t>, int64_t> summed;
  for (const NameStatistics& st : stats)
    summed[ratio_key(std::get<0>(keys[st.group]))] += st.total_ns;
  const double wall = static_cast<double>(table.wall_ns());
  table.rows.reserve(stats.size());
  for (NameStatistics& st : stats) {
    OperatorTableRow row;
    std::tie(row.process, row.device, row.task_type) = keys[st.group];
    row.ratio_pct = RatioOfSummedTotal(st.total_ns, summed[ratio_key(row.process)]);
    row.wall_pct = wall > 0 ? 100.0 * static_cast<double>(st.total_ns) / wall : 0.0;
    row.self_wall_pct = wall > 0 ? 100.0 * static_cast<double>(st.self_ns) / wall : 0.0;
    row.stats = st;
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace aiprof::analysis
