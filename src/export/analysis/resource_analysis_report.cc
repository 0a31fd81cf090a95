#include "export/analysis/resource_analysis_report.h"

#include <cstdio>
#include <ostream>
#include <string>

#include "export/analysis/report_format.h"
#include "export/analysis/resource_analysis_files.h"

namespace aiprof::exporter {
namespace {

using report::Line;
using report::Ms;
using report::Percent;

double MiB(int64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

std::string Joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

void PrintDataPreparation(const analysis::DataPreparationResult& r, std::ostream& out) {
  if (r.inputs.empty() || r.steps.empty()) {
    out << "  data preparation: no data (no DataLoader operators or input-wait ranges in the "
           "steps)\n";
    return;
  }
  out << Line(
      "  data preparation: %.1f%% of step time waiting for input (%.3f of %.3f ms, %zu "
      "steps; from %s)\n",
      Percent(r.total_wait_ns, r.total_step_ns), Ms(r.total_wait_ns), Ms(r.total_step_ns),
      r.steps.size(), Joined(r.inputs).c_str());
  if (r.has_queue_view) {
    out << Line("    input queue empty in %u of %zu steps\n", r.empty_queue_steps, r.steps.size());
  }
}

void PrintMemory(const analysis::MemoryAnalysis& r, std::ostream& out) {
  if (r.pools.empty()) {
    out << "  memory peak: no data (no allocator events, CUPTI or NVML memory records)\n";
  }
  for (const analysis::MemoryPool& pool : r.pools) {
    out << Line("  memory peak: %s %.3f MiB", pool.name.c_str(), MiB(pool.peak_allocated));
    if (pool.peak_reserved >= 0) out << Line(" (reserved %.3f MiB)", MiB(pool.peak_reserved));
    out << " [" << analysis::MemoryPoolSourceName(pool.source) << "]\n";
  }
  if (!r.top_operators.empty()) {
    const analysis::OperatorMemoryRow& top = r.top_operators[0];
    out << Line("    most allocated by %s: %.3f MiB in %llu allocations\n", top.name.c_str(),
                MiB(top.allocated_bytes), static_cast<unsigned long long>(top.allocations));
  }
}

void PrintBreakdown(const model::Model& m, const analysis::AnalysisSet& set, std::ostream& out) {
  const analysis::KernelBreakdownResult& k = set.kernel_breakdown;
  if (k.temporal.empty()) {
    out << "  time breakdown: no data (no device kernels, framework operators or marker "
           "ranges)\n";
    return;
  }
  // One line of a process's idle split over `lanes`, if it was idle at all.
  auto print_idle = [&](const analysis::IdleTimeResult& lanes, uint32_t process,
                        const char* where) {
    int64_t host = 0, kernel = 0, other = 0;
    for (const analysis::IdleTimeRow& lane : lanes.lanes) {
      if (lane.process != process) continue;
      host += lane.host_wait_ns;
      kernel += lane.kernel_wait_ns;
      other += lane.other_ns;
    }
    const int64_t idle = host + kernel + other;
    if (idle <= 0) return;
    out << Line(
        "    idle per lane %s: host wait %.1f%%, kernel wait %.1f%%, other %.1f%% of "
        "%.3f ms\n",
        where, Percent(host, idle), Percent(kernel, idle), Percent(other, idle), Ms(idle));
  };
  for (const analysis::TemporalBreakdownRow& t : k.temporal) {
    // HTA's figures cover the whole run, start-up included; the steps' own split follows.
    out << Line(
        "  time breakdown %s (%s, whole run): compute %.1f%%, non-compute %.1f%%, idle "
        "%.1f%% of %.3f ms\n",
        ProcessDeviceId(m, t.process).c_str(),
        std::string(analysis::ActivitySourceName(k.source)).c_str(),
        Percent(t.compute_ns, t.span_ns), Percent(t.non_compute_ns, t.span_ns),
        Percent(t.idle_ns, t.span_ns), Ms(t.span_ns));
    print_idle(set.idle_time, t.process, "(whole run)");
    print_idle(set.idle_time_in_steps, t.process, "in the steps");
    const analysis::CommunicationOverlap overlap = analysis::CommunicationOverlapOf(k, t.process);
    if (overlap.communication_ns > 0) {
      out << Line("    communication overlapped by computation: %.1f%% of %.3f ms (HTA)\n",
                  100.0 * overlap.ratio(), Ms(overlap.communication_ns));
    }
  }
  if (k.has_launch_flows) {
    const analysis::LaunchStatistics& l = k.launches;
    out << Line(
        "  launches: %llu, short kernels %llu, runtime outliers %llu, launch-delay "
        "outliers %llu, max delay %.3f ms\n",
        static_cast<unsigned long long>(l.launches),
        static_cast<unsigned long long>(l.short_kernels),
        static_cast<unsigned long long>(l.runtime_outliers),
        static_cast<unsigned long long>(l.launch_delay_outliers), Ms(l.max_launch_delay_ns));
  }
}

}  // namespace

void PrintResourceReport(const model::Model& model, const analysis::AnalysisSet& set,
                         std::ostream& out) {
  PrintDataPreparation(set.data_preparation, out);
  PrintMemory(set.memory, out);
  PrintBreakdown(model, set, out);
}

}  // namespace aiprof::exporter
