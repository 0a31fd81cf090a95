#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/op_statistics.h"
#include "export/csv/summaries.h"

namespace aiprof::exporter {
namespace {

std::string DeviceColumn(const model::Model& m, uint32_t slice) {
  return analysis::DeviceColumnOf(m, slice);
}

void WriteStatistics(const model::Model& m, const SummaryTarget& target, const char* name,
                     std::vector<std::string> headers,
                     const std::vector<analysis::NameStatistics>& stats,
                     const std::vector<std::string>& group_names, bool api_layout) {
  int64_t grand_total = 0;
  for (const auto& st : stats) grand_total += st.total_ns;
  SummaryWriter w(target, name, std::move(headers), stats.size());
  for (const auto& st : stats) {
    std::string_view group = group_names[st.group];  // "device\tlabel"
    size_t tab = group.find('\t');
    w.Text(group.substr(0, tab));
    if (api_layout) {
      w.Text(group.substr(tab + 1)).Text(m.Str(st.name)).Micros(st.total_ns).Unsigned(st.count);
      w.Micros(static_cast<int64_t>(st.mean_ns + 0.5)).Micros(st.min_ns).Micros(st.max_ns);
      w.Real(st.variance_ns2() / 1e6);  // µs²
    } else {
      w.Text(m.Str(st.name)).Text(group.substr(tab + 1)).Unsigned(st.count).Micros(st.total_ns);
      w.Micros(st.min_ns).Micros(static_cast<int64_t>(st.mean_ns + 0.5)).Micros(st.max_ns);
      w.Real(analysis::RatioOfSummedTotal(st.total_ns, grand_total));
    }
    w.EndRow();
  }
}

// task_time: one row per device task (kernel, memcpy, memset).
void WriteTaskTime(const model::Model& m, const analysis::ComputeTasks& tasks,
                   const SummaryTarget& target) {
  const model::SliceTable& s = m.slices;
  SummaryWriter w(target, "task_time",
                  {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id",
                   "task_time(us)", "task_start(us)", "task_stop(us)"},
                  tasks.rows.size());
  uint64_t task_id = 0;
  for (uint32_t row : tasks.rows) {
    std::string_view type = analysis::TaskTypeOf(m, row);
    w.Text(DeviceColumn(m, row));
    if (type == "KERNEL") {
      w.Text(m.Str(s.name[row]));
    } else {
      w.NotApplicable();
    }
    w.Text(type).Unsigned(m.threads.tid[m.ThreadOfSlice(row)]).Unsigned(task_id++);
    w.Micros(s.dur(row)).Micros(s.ts[row]).Micros(s.end[row]).EndRow();
  }
}

// Hardware counters of kernels (CUDA source: kernel args "metric.<column>"), as msprof's
// metric group columns after the fixed ones, in first-seen order.
constexpr std::string_view kMetricPrefix = "metric.";

std::vector<std::string_view> MetricColumns(const model::Model& m,
                                            const std::vector<uint32_t>& rows) {
  std::vector<std::string_view> columns;
  for (uint32_t row : rows) {
    const uint32_t set = m.slices.args[row];
    if (set == 0 || set + 1 >= m.args.set_begin.size()) continue;
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      const std::string_view key = m.Str(m.args.key[i]);
      if (key.starts_with(kMetricPrefix) &&
          std::find(columns.begin(), columns.end(), key) == columns.end()) {
        columns.push_back(key);
      }
    }
  }
  return columns;
}

void WriteMetricCells(const model::Model& m, uint32_t row,
                      const std::vector<std::string_view>& columns, SummaryWriter& w) {
  const uint32_t set = m.slices.args[row];
  for (std::string_view column : columns) {
    if (const auto bits = m.args.Bits(set, m.strings.Find(column))) {
      w.Real(std::bit_cast<double>(*bits));
    } else {
      w.NotApplicable();
    }
  }
}

// A kernel's counter value (a "metric.<column>" arg), if collected.
std::optional<double> MetricValue(const model::Model& m, uint32_t row, model::StringId key) {
  const auto bits = m.args.Bits(m.slices.args[row], key);
  if (!bits) return std::nullopt;
  return std::bit_cast<double>(*bits);
}

struct L2Row {
  uint32_t row;
  uint64_t task_id;
  double hit_rate_percent;
};

// msprof's l2_cache (torch_npu's l2_cache.csv with l2_cache=True): the kernels whose L2 hit
// rate was collected (--l2), by op_summary's Task ID; Hit Rate a fraction as msprof writes
// it; CUPTI has no victim rate.
void WriteL2Cache(const model::Model& m, const std::vector<L2Row>& rows,
                  const SummaryTarget& target) {
  if (rows.empty()) return;
  SummaryWriter w(target, "l2_cache",
                  {"Device_id", "Stream Id", "Task Id", "Hit Rate", "Victim Rate", "Op Name"},
                  rows.size());
  for (const L2Row& r : rows) {
    w.Text(DeviceColumn(m, r.row))
        .Unsigned(m.threads.tid[m.ThreadOfSlice(r.row)])
        .Unsigned(r.task_id)
        .Fixed(r.hit_rate_percent / 100.0, 6)
        .NotApplicable()
        .Text(m.Str(m.slices.name[r.row]))
        .EndRow();
  }
}

}  // namespace

void WriteOpSummaries(const model::Model& m, const SummaryTarget& target) {
  analysis::ComputeTasks tasks = analysis::SelectComputeTasks(m);
  if (tasks.rows.empty()) return;
  const model::SliceTable& s = m.slices;
  const model::StringId l2_hit_rate = m.strings.Find("metric.l2_hit_rate(%)");
  std::vector<L2Row> l2_rows;
  {
    const std::vector<std::string_view> metrics = MetricColumns(m, tasks.rows);
    std::vector<std::string> headers = {
        "Device_id",         "Model ID", "Task ID",   "Stream ID",           "Op Name",
        "OP Type",           "OP State", "Task Type", "Task Start Time(us)", "Task Duration(us)",
        "Task Wait Time(us)"};
    for (std::string_view column : metrics) {
      headers.emplace_back(column.substr(kMetricPrefix.size()));
    }
    SummaryWriter w(target, "op_summary", std::move(headers), tasks.rows.size());
    std::unordered_map<uint32_t, int64_t> previous_end;  // per thread/stream
    uint64_t task_id = 0;
    for (uint32_t row : tasks.rows) {
      uint32_t thread = m.ThreadOfSlice(row);
      auto [it, first] = previous_end.emplace(thread, s.ts[row]);
      int64_t wait = first ? 0 : std::max<int64_t>(s.ts[row] - it->second, 0);
      it->second = std::max(it->second, s.end[row]);
      w.Text(DeviceColumn(m, row))
          .NotApplicable()
          .Unsigned(task_id++)
          .Unsigned(m.threads.tid[thread]);
      w.Text(m.Str(s.name[row])).Text(m.Str(s.name[row])).NotApplicable();
      w.Text(analysis::TaskTypeOf(m, row)).Micros(s.ts[row]).Micros(s.dur(row)).Micros(wait);
      WriteMetricCells(m, row, metrics, w);
      w.EndRow();
      if (auto hit = MetricValue(m, row, l2_hit_rate)) l2_rows.push_back({row, task_id - 1, *hit});
    }
  }
  WriteL2Cache(m, l2_rows, target);
  if (tasks.source == analysis::TaskSource::kDevice) WriteTaskTime(m, tasks, target);
  const analysis::TaskGroups groups = analysis::GroupByDeviceAndTaskType(m, tasks.rows);
  WriteStatistics(m, target, "op_statistic",
                  {"Device_id", "OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)",
                   "Avg Time(us)", "Max Time(us)", "Ratio(%)"},
                  analysis::StatisticsByNameAndGroup(m, tasks.rows, groups.group_of_row),
                  groups.names, false);
}

void WriteApiStatistic(const model::Model& m, const SummaryTarget& target) {
  std::vector<std::string_view> level(m.strings.size());
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    std::string_view category = m.strings.Get(id);
    if (category == "cuda_runtime") level[id] = "Runtime";
    if (category == "cuda_driver") level[id] = "Driver";
    if (category == "cpu_op") level[id] = "Framework";
  }
  const std::vector<std::string> group_names = {"host\tRuntime", "host\tDriver", "host\tFramework"};
  std::vector<uint32_t> rows;
  std::vector<uint32_t> groups;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    std::string_view l = level[m.slices.category[row]];
    if (l.empty()) continue;
    rows.push_back(row);
    groups.push_back(l == "Runtime" ? 0 : l == "Driver" ? 1 : 2);
  }
  if (rows.empty()) return;
  WriteStatistics(m, target, "api_statistic",
                  {"Device_id", "Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)",
                   "Max(us)", "Variance"},
                  analysis::StatisticsByNameAndGroup(m, rows, groups), group_names, true);
}

}  // namespace aiprof::exporter
