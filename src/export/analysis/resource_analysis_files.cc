#include "export/analysis/resource_analysis_files.h"

#include <cmath>

namespace aiprof::exporter {
namespace {

double Ratio(int64_t part, int64_t whole) {
  if (whole <= 0) return 0.0;
  return std::round(static_cast<double>(part) / static_cast<double>(whole) * 10000.0) / 10000.0;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : "; ") + item;
  return text.empty() ? "none" : text;
}

void WriteDataPreparation(const model::Model& m, const analysis::DataPreparationResult& r,
                          const SummaryTarget& target) {
  if (r.steps.empty()) return;
  const bool several_loops = model::HasSeveralLoops(m);
  {
    SummaryWriter w(target, "data_preparation",
                    {"Step", "Thread Id", "Step Time(us)", "Data Wait(us)", "Data Wait Ratio",
                     "Waits", "Loader Busy(us)", "Queue Empty"},
                    r.steps.size());
    for (const analysis::DataPreparationStep& s : r.steps) {
      w.Step(s.step, s.loop, several_loops)
          .Unsigned(m.threads.tid[s.thread])
          .Micros(s.duration_ns());
      w.Micros(s.wait_ns).Real(Ratio(s.wait_ns, s.duration_ns())).Unsigned(s.waits);
      w.Micros(s.loader_busy_ns);
      if (r.has_queue_view) {
        w.PlainText(s.queue_empty ? "yes" : "no");
      } else {
        w.NotApplicable();
      }
      w.EndRow();
    }
  }
  SummaryWriter w(
      target, "data_preparation_summary",
      {"Inputs", "Steps", "Step Time(us)", "Data Wait(us)", "Data Wait Ratio", "Empty Queue Steps"},
      1);
  w.Text(Joined(r.inputs)).Unsigned(r.steps.size()).Micros(r.total_step_ns);
  w.Micros(r.total_wait_ns).Real(Ratio(r.total_wait_ns, r.total_step_ns));
  if (r.has_queue_view) {
    w.Unsigned(r.empty_queue_steps);
  } else {
    w.NotApplicable();
  }
  w.EndRow();
}

void WriteMemory(const model::Model& m, const analysis::MemoryAnalysis& r,
                 const SummaryTarget& target) {
  if (r.pools.empty() && r.transfers.empty()) return;
  const bool several_loops = model::HasSeveralLoops(m);
  auto reserved = [](SummaryWriter& w, int64_t bytes) -> SummaryWriter& {
    return bytes < 0 ? w.NotApplicable() : w.Number(bytes);
  };
  if (!r.pools.empty()) {
    SummaryWriter w(target, "memory_analysis",
                    {"Pool", "Device_id", "Source", "Samples", "Peak Allocated(B)",
                     "Peak Allocated Time(us)", "Peak Reserved(B)"},
                    r.pools.size());
    for (const analysis::MemoryPool& pool : r.pools) {
      w.Text(pool.name).Text(ProcessDeviceId(m, pool.process));
      w.Text(analysis::MemoryPoolSourceName(pool.source)).Unsigned(pool.samples.size());
      w.Number(pool.peak_allocated).Micros(pool.peak_allocated_ts);
      reserved(w, pool.peak_reserved).EndRow();
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
  if (!r.top_operators.empty()) {
    SummaryWriter w(
        target, "operator_memory_top",
        {"Name", "Pool", "Allocations", "Allocated(B)", "Max Allocation(B)", "Freed(B)"},
        r.top_operators.size());
    for (const analysis::OperatorMemoryRow& op : r.top_operators) {
      w.Text(op.name).Text(r.pools[op.pool].name).Unsigned(op.allocations);
      w.Number(op.allocated_bytes).Number(op.max_allocation).Number(op.freed_bytes).EndRow();
    }
  }
  if (!r.category_tracks.empty()) {
    uint64_t rows = 0;
    for (const analysis::MemoryCategoryTrack& t : r.category_tracks) rows += t.points.size();
    SummaryWriter w(target, "memory_category_timeline", {"Pool", "Category", "Time(us)", "Bytes"},
                    rows);
    for (const analysis::MemoryCategoryTrack& t : r.category_tracks) {
      for (const auto& [ts, bytes] : t.points) {
        w.Text(r.pools[t.pool].name).Text(analysis::MemoryCategoryName(t.category));
        w.Micros(ts).Number(bytes).EndRow();
      }
    }
  }
  if (!r.transfers.empty()) {
    SummaryWriter w(target, "memory_transfers", {"Step", "Kind", "Count", "Bytes", "Time(us)"},
                    r.transfers.size());
    for (const analysis::MemoryTransferRow& t : r.transfers) {
      if (t.whole_run) {
        w.PlainText("all");
      } else {
        w.Step(t.step, t.loop, several_loops);
      }
      w.Text(t.kind).Unsigned(t.count).Number(t.bytes).Micros(t.time_ns).EndRow();
    }
  }
}

void WriteKernelBreakdown(const model::Model& m, const analysis::KernelBreakdownResult& r,
                          const SummaryTarget& target) {
  if (r.temporal.empty()) return;
  {
    SummaryWriter w(
        target, "temporal_breakdown",
        {"Device_id", "Input", "idle_time(us)", "compute_time(us)", "non_compute_time(us)",
         "kernel_time(us)", "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"},
        r.temporal.size());
    for (const analysis::TemporalBreakdownRow& t : r.temporal) {
      w.Text(ProcessDeviceId(m, t.process)).Text(analysis::ActivitySourceName(r.source));
      w.Micros(t.idle_ns).Micros(t.compute_ns).Micros(t.non_compute_ns).Micros(t.span_ns);
      w.Real(100 * Ratio(t.idle_ns, t.span_ns)).Real(100 * Ratio(t.compute_ns, t.span_ns));
      w.Real(100 * Ratio(t.non_compute_ns, t.span_ns)).EndRow();
    }
  }
  {
    SummaryWriter w(target, "kernel_type_breakdown",
                    {"Device_id", "kernel_type", "sum(us)", "percentage"}, r.type_time.size());
    std::vector<int64_t> total_of(m.processes.size(), 0);
    for (const analysis::TypeTimeRow& t : r.type_time) total_of[t.process] += t.time_ns;
    for (const analysis::TypeTimeRow& t : r.type_time) {
      w.Text(ProcessDeviceId(m, t.process)).Text(t.label).Micros(t.time_ns);
      w.Real(100 * Ratio(t.time_ns, total_of[t.process])).EndRow();
    }
  }
  SummaryWriter w(target, "kernel_breakdown",
                  {"Device_id", "kernel_type", "name", "count", "sum(us)", "max(us)", "min(us)",
                   "mean(us)", "std(us)"},
                  r.top_kernels.size());
  for (const analysis::KernelStatsRow& k : r.top_kernels) {
    w.Text(ProcessDeviceId(m, k.process)).Text(analysis::ActivityTypeName(k.type)).Text(k.name);
    w.Unsigned(k.count).Micros(k.total_ns).Micros(k.max_ns).Micros(k.min_ns);
    w.Micros(std::llround(k.mean_ns)).Micros(std::llround(k.stddev_ns)).EndRow();
  }
}

void WriteIdleTime(const model::Model& m, const analysis::IdleTimeResult& r,
                   const SummaryTarget& target) {
  if (r.lanes.empty()) return;
  SummaryWriter w(
      target, "idle_time_breakdown",
      {"Device_id", "Stream", "Busy(us)", "Idle(us)", "host_wait(us)", "kernel_wait(us)",
       "other(us)", "host_wait_ratio", "kernel_wait_ratio", "other_ratio", "host_wait_intervals",
       "kernel_wait_intervals", "other_intervals", "Launches Known"},
      r.lanes.size());
  for (const analysis::IdleTimeRow& lane : r.lanes) {
    const int64_t idle = lane.idle_ns();
    w.Text(ProcessDeviceId(m, lane.process)).Unsigned(m.threads.tid[lane.thread]);
    w.Micros(lane.busy_ns).Micros(idle).Micros(lane.host_wait_ns).Micros(lane.kernel_wait_ns);
    w.Micros(lane.other_ns).Real(Ratio(lane.host_wait_ns, idle));
    w.Real(Ratio(lane.kernel_wait_ns, idle)).Real(Ratio(lane.other_ns, idle));
    w.Unsigned(lane.host_wait_intervals).Unsigned(lane.kernel_wait_intervals);
    w.Unsigned(lane.other_intervals).PlainText(lane.has_launches ? "yes" : "no").EndRow();
  }
}

void WriteLaunchStatistics(const model::Model& m, const analysis::KernelBreakdownResult& r,
                           const SummaryTarget& target) {
  if (!r.has_launch_flows) return;
  const analysis::LaunchStatistics& l = r.launches;
  {
    SummaryWriter w(target, "cuda_launch_statistics",
                    {"Launches", "Short Kernels", "Runtime Outliers", "Launch Delay Outliers",
                     "Mean Launch Delay(us)", "Max Launch Delay(us)"},
                    1);
    w.Unsigned(l.launches).Unsigned(l.short_kernels).Unsigned(l.runtime_outliers);
    w.Unsigned(l.launch_delay_outliers);
    w.Micros(l.launches > 0 ? l.total_launch_delay_ns / static_cast<int64_t>(l.launches) : 0);
    w.Micros(l.max_launch_delay_ns).EndRow();
  }
  if (l.largest_delays.empty()) return;
  SummaryWriter w(target, "launch_delay_outliers",
                  {"Device_id", "Launch", "Kernel", "Launch Start(us)", "cpu_duration(us)",
                   "gpu_duration(us)", "launch_delay(us)"},
                  l.largest_delays.size());
  const model::SliceTable& s = m.slices;
  for (const analysis::LaunchOutlier& o : l.largest_delays) {
    w.Text(ProcessDeviceId(m, m.ProcessOfThread(m.ThreadOfSlice(o.kernel_slice))));
    w.Text(m.Str(s.name[o.launch_slice])).Text(m.Str(s.name[o.kernel_slice]));
    w.Micros(s.ts[o.launch_slice]).Micros(o.cpu_duration_ns).Micros(o.gpu_duration_ns);
    w.Micros(o.launch_delay_ns).EndRow();
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
