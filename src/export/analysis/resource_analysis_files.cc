#include "export/analysis/resource_analysis_files.h"

#include <cmath>

namespace aiprof::exporter {
namespace {

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : "; ") + item;
  return text.empty() ? "none" : text;
}

// The headers `keys` followed by the headers of the columns the files show.
template <typename Row>
std::vector<std::string> Headers(std::vector<std::string> keys, analysis::Columns<Row> columns) {
  AppendHeaders<Row>(keys, columns);
  return keys;
}

// The headers of a row whose writer puts its own `key` column after the first `names`
// described columns (a pool's or an operator's name) and before the others.
template <typename Row>
std::vector<std::string> HeadersWithKeyAfter(size_t names, std::string key,
                                             analysis::Columns<Row> columns) {
  std::vector<std::string> headers;
  AppendHeaders(headers, columns.first(names));
  headers.push_back(std::move(key));
  AppendHeaders(headers, columns.subspan(names));
  return headers;
}

void WriteDataPreparation(const model::Model& m, const analysis::DataPreparationResult& r,
                          const SummaryTarget& target) {
  if (r.steps.empty()) return;
  const bool several_loops = model::HasSeveralLoops(m);
  {
    SummaryWriter w(target, "data_preparation",
                    Headers<analysis::DataPreparationStep>({"Step", "Thread Id"},
                                                           analysis::kDataPreparationColumns),
                    r.steps.size());
    for (const analysis::DataPreparationStep& s : r.steps) {
      w.Step(s.step, s.loop, several_loops).Unsigned(m.threads.tid[s.thread]);
      w.Cells<analysis::DataPreparationStep>(analysis::kDataPreparationColumns, s).EndRow();
    }
  }
  SummaryWriter w(target, "data_preparation_summary",
                  Headers<analysis::DataPreparationResult>(
                      {"Inputs"}, analysis::kDataPreparationSummaryColumns),
                  1);
  w.Text(Joined(r.inputs));
  w.Cells<analysis::DataPreparationResult>(analysis::kDataPreparationSummaryColumns, r).EndRow();
}

// The table and the UI hold the pool's index; the files its name, after the operator's.
void WriteOperatorMemory(const analysis::MemoryAnalysis& r, const SummaryTarget& target) {
  const analysis::Columns<analysis::OperatorMemoryRow> columns = analysis::kOperatorMemoryColumns;
  const auto names = columns.first(analysis::kOperatorMemoryFileNameColumns);
  const auto figures = columns.subspan(analysis::kOperatorMemoryFileNameColumns);
  SummaryWriter w(target, "operator_memory_top",
                  HeadersWithKeyAfter(analysis::kOperatorMemoryFileNameColumns, "Pool", columns),
                  r.top_operators.size());
  for (const analysis::OperatorMemoryRow& op : r.top_operators) {
    w.Cells(names, op).Text(r.pools[op.pool].name).Cells(figures, op).EndRow();
  }
}

// One row per change point of every category track, after the pool's name.
void WriteCategoryTimeline(const analysis::MemoryAnalysis& r, const SummaryTarget& target) {
  uint64_t rows = 0;
  for (const analysis::MemoryCategoryTrack& t : r.category_tracks) rows += t.points.size();
  SummaryWriter w(
      target, "memory_category_timeline",
      Headers<analysis::MemoryCategoryPoint>({"Pool"}, analysis::kMemoryCategoryColumns), rows);
  for (const analysis::MemoryCategoryTrack& t : r.category_tracks) {
    for (const auto& [ts, bytes] : t.points) {
      w.Text(r.pools[t.pool].name);
      w.Cells<analysis::MemoryCategoryPoint>(analysis::kMemoryCategoryColumns, {&t, ts, bytes});
      w.EndRow();
    }
  }
}

void WriteMemory(const model::Model& m, const analysis::MemoryAnalysis& r,
                 const SummaryTarget& target) {
  if (r.pools.empty() && r.transfers.empty()) return;
  const bool several_loops = model::HasSeveralLoops(m);
  if (!r.pools.empty()) {
    const analysis::Columns<analysis::MemoryPool> columns = analysis::kMemoryPoolColumns;
    const auto names = columns.first(analysis::kMemoryPoolFileNameColumns);
    const auto figures = columns.subspan(analysis::kMemoryPoolFileNameColumns);
    SummaryWriter w(target, "memory_analysis",
                    HeadersWithKeyAfter(analysis::kMemoryPoolFileNameColumns, "Device_id", columns),
                    r.pools.size());
    for (const analysis::MemoryPool& pool : r.pools) {
      w.Cells(names, pool).Text(ProcessDeviceId(m, pool.process)).Cells(figures, pool).EndRow();
    }
  }
  if (!r.steps.empty()) {
    std::vector<std::string> headers = {"Step", "Pool"};
    AppendHeaders<analysis::MemoryStepRow>(headers, analysis::kMemoryStepColumns);
    SummaryWriter w(target, "memory_steps", std::move(headers), r.steps.size());
    for (const analysis::MemoryStepRow& s : r.steps) {
      w.Step(s.step, s.loop, several_loops).Text(r.pools[s.pool].name);
      w.Cells<analysis::MemoryStepRow>(analysis::kMemoryStepColumns, s).EndRow();
    }
  }
  if (!r.top_operators.empty()) WriteOperatorMemory(r, target);
  if (!r.category_tracks.empty()) WriteCategoryTimeline(r, target);
  if (!r.transfers.empty()) {
    SummaryWriter w(
        target, "memory_transfers",
        Headers<analysis::MemoryTransferRow>({"Step"}, analysis::kMemoryTransferColumns),
        r.transfers.size());
    for (const analysis::MemoryTransferRow& t : r.transfers) {
      if (t.whole_run) {
        w.PlainText("all");
      } else {
        w.Step(t.step, t.loop, several_loops);
      }
      w.Cells<analysis::MemoryTransferRow>(analysis::kMemoryTransferColumns, t).EndRow();
    }
  }
}

void WriteKernelBreakdown(const model::Model& m, const analysis::KernelBreakdownResult& r,
                          const SummaryTarget& target) {
  if (r.temporal.empty()) return;
  {
    SummaryWriter w(target, "temporal_breakdown",
                    Headers<analysis::TemporalBreakdownRow>({"Device_id", "Input"},
                                                            analysis::kTemporalBreakdownColumns),
                    r.temporal.size());
    for (const analysis::TemporalBreakdownRow& t : r.temporal) {
      w.Text(ProcessDeviceId(m, t.process)).Text(analysis::ActivitySourceName(r.source));
      w.Cells<analysis::TemporalBreakdownRow>(analysis::kTemporalBreakdownColumns, t).EndRow();
    }
  }
  {
    SummaryWriter w(
        target, "kernel_type_breakdown",
        Headers<analysis::TypeTimeRow>({"Device_id"}, analysis::kKernelTypeBreakdownColumns),
        r.type_time.size());
    for (const analysis::TypeTimeRow& t : r.type_time) {
      w.Text(ProcessDeviceId(m, t.process));
      w.Cells<analysis::TypeTimeRow>(analysis::kKernelTypeBreakdownColumns, t).EndRow();
    }
  }
  SummaryWriter w(
      target, "kernel_breakdown",
      Headers<analysis::KernelStatsRow>({"Device_id"}, analysis::kKernelBreakdownColumns),
      r.top_kernels.size());
  for (const analysis::KernelStatsRow& k : r.top_kernels) {
    w.Text(ProcessDeviceId(m, k.process));
    w.Cells<analysis::KernelStatsRow>(analysis::kKernelBreakdownColumns, k).EndRow();
  }
}

void WriteIdleTime(const model::Model& m, const analysis::IdleTimeResult& r,
                   const SummaryTarget& target) {
  if (r.lanes.empty()) return;
  SummaryWriter w(
      target, "idle_time_breakdown",
      Headers<analysis::IdleTimeRow>({"Device_id", "Stream"}, analysis::kIdleTimeColumns),
      r.lanes.size());
  for (const analysis::IdleTimeRow& lane : r.lanes) {
    w.Text(ProcessDeviceId(m, lane.process)).Unsigned(m.threads.tid[lane.thread]);
    w.Cells<analysis::IdleTimeRow>(analysis::kIdleTimeColumns, lane).EndRow();
  }
}

void WriteLaunchStatistics(const model::Model& m, const analysis::KernelBreakdownResult& r,
                           const SummaryTarget& target) {
  if (!r.has_launch_flows) return;
  const analysis::LaunchStatistics& l = r.launches;
  SummaryWriter(target, "cuda_launch_statistics",
                Headers<analysis::LaunchStatistics>({}, analysis::kLaunchStatisticsColumns), 1)
      .Cells<analysis::LaunchStatistics>(analysis::kLaunchStatisticsColumns, l)
      .EndRow();
  if (l.largest_delays.empty()) return;
  SummaryWriter w(target, "launch_delay_outliers",
                  Headers<analysis::LaunchOutlier>({"Device_id", "Launch", "Kernel"},
                                                   analysis::kLaunchOutlierColumns),
                  l.largest_delays.size());
  const model::SliceTable& s = m.slices;
  for (const analysis::LaunchOutlier& o : l.largest_delays) {
    w.Text(ProcessDeviceId(m, m.ProcessOfThread(m.ThreadOfSlice(o.kernel_slice))));
    w.Text(m.Str(s.name[o.launch_slice])).Text(m.Str(s.name[o.kernel_slice]));
    w.Cells<analysis::LaunchOutlier>(analysis::kLaunchOutlierColumns, o).EndRow();
  }
}

}  // namespace

std::string ProcessDeviceId(const model::Model& m, uint32_t process) {
  return m.processes.device_id[process] >= 0 ? std::to_string(m.processes.device_id[process])
                                             : "host:" + std::to_string(m.processes.pid[process]);
}

void WriteResourceAnalysisFiles(const model::Model& model, const analysis::AnalysisSet& set,
                                const SummaryTarget& target) {
  WriteDataPreparation(model, set.data_preparation, target);
  WriteMemory(model, set.memory, target);
  WriteKernelBreakdown(model, set.kernel_breakdown, target);
  WriteIdleTime(model, set.idle_time, target);
  WriteLaunchStatistics(model, set.kernel_breakdown, target);
}

}  // namespace aiprof::exporter
