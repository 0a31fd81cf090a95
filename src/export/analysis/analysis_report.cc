#include "export/analysis/analysis_report.h"

#include <cstdio>
#include <ostream>
#include <string>

#include "analysis/op_statistics.h"
#include "export/analysis/analysis_files.h"
#include "export/analysis/cpu_sampling_report.h"
#include "export/analysis/report_format.h"
#include "export/analysis/resource_analysis_report.h"

namespace aiprof::exporter {
namespace {

using report::Line;
using report::Ms;
using report::Percent;

struct Totals {
  int64_t time = 0, computing = 0, not_overlapped = 0, overlapped = 0, free = 0, bubble = 0,
          preparing = 0;
  void Add(const analysis::StepBreakdownRow& r) {
    time += r.end_ns - r.begin_ns;
    computing += r.computing_ns;
    not_overlapped += r.communication_not_overlapped_ns;
    overlapped += r.overlapped_ns();
    free += r.free_ns;
    bubble += r.bubble_ns;
    preparing += r.preparing_ns;
  }
};

void PrintStepTable(const model::Model& m, const analysis::AnalysisSet& set, std::ostream& out) {
  const std::vector<analysis::StepBreakdownRow>& rows = set.step_breakdown.rows;
  if (rows.empty()) {
    out << "  step breakdown: no data (no compute tasks or communication found)\n";
    return;
  }
  bool has_steps = set.step_breakdown.step_source != analysis::StepSource::kNone;
  size_t begin = 0;
  while (begin < rows.size()) {
    uint32_t scope = rows[begin].scope;
    size_t end = begin;
    Totals totals;
    while (end < rows.size() && rows[end].scope == scope) totals.Add(rows[end++]);
    const analysis::OverlapScope& s = set.overlap.scopes[scope];
    out << "  " << ScopeDeviceId(m, s)
        << " (compute: " << analysis::ComputeInputName(s.compute_input) << ")\n";
    out << Line("    %-8s %12s %10s %13s %10s %6s %12s\n", "Step", "Time(ms)", "Computing",
                "Comm(NotOvl)", "Overlapped", "Free", "Preparing");
    for (size_t i = begin; i < end && i < begin + kReportStepRows; ++i) {
      const analysis::StepBreakdownRow& r = rows[i];
      int64_t time = r.end_ns - r.begin_ns;
      std::string step = has_steps ? set.steps.Label(r.step, r.loop) : "all";
      out << Line("    %-8s %12.3f %9.1f%% %12.1f%% %9.1f%% %5.1f%% %9.3f ms\n", step.c_str(),
                  Ms(time), Percent(r.computing_ns, time),
                  Percent(r.communication_not_overlapped_ns, time),
                  Percent(r.overlapped_ns(), time), Percent(r.free_ns, time), Ms(r.preparing_ns));
    }
    if (end - begin > kReportStepRows) {
      out << "    ... " << end - begin - kReportStepRows
          << " more step(s) in step_trace_time.csv\n";
    }
    size_t count = end - begin;
    out << Line(
        "    all %zu step(s): %.3f ms, mean %.3f ms; Computing %.1f%%, Communication(Not "
        "Overlapped) %.1f%%, Overlapped %.1f%%, Free %.1f%%, Bubble %.1f%%, Preparing %.1f%%\n",
        count, Ms(totals.time), Ms(totals.time) / static_cast<double>(count),
        Percent(totals.computing, totals.time), Percent(totals.not_overlapped, totals.time),
        Percent(totals.overlapped, totals.time), Percent(totals.free, totals.time),
        Percent(totals.bubble, totals.time), Percent(totals.preparing, totals.time));
    begin = end;
  }
}

// The compute tasks (device tasks or framework operators), else the marker ranges.
void PrintTopOperators(const model::Model& m, std::ostream& out) {
  analysis::ComputeTasks tasks = analysis::SelectComputeTasks(m);
  std::vector<uint32_t> rows = std::move(tasks.rows);
  const char* what =
      tasks.source == analysis::TaskSource::kDevice ? "device tasks" : "framework operators";
  if (rows.empty()) {
    what = "marker ranges";
    const std::vector<uint8_t> is_step = model::StepRangeMask(m);
    for (size_t i = 0; i < m.markers.size(); ++i) {
      if (!m.markers.is_instant[i] && !is_step[m.markers.row[i]]) rows.push_back(m.markers.row[i]);
    }
  }
  if (rows.empty()) {
    out << "  top operators: no data (no device tasks, framework operators or marker ranges)\n";
    return;
  }
  std::vector<uint32_t> groups(rows.size(), 0);
  std::vector<analysis::NameStatistics> stats = analysis::StatisticsByNameAndGroup(m, rows, groups);
  int64_t total = 0;
  for (const analysis::NameStatistics& s : stats) total += s.total_ns;
  out << "  top " << what << " by total time:\n";
  for (size_t i = 0; i < stats.size() && i < kReportTopOperators; ++i) {
    std::string name(m.Str(stats[i].name).substr(0, 56));
    out << Line("    %-56s %9llu calls %12.3f ms %5.1f%%\n", name.c_str(),
                static_cast<unsigned long long>(stats[i].count), Ms(stats[i].total_ns),
                Percent(stats[i].total_ns, total));
  }
}

}  // namespace

void PrintAnalysisReport(const model::Model& model, const analysis::AnalysisSet& set,
                         std::ostream& out) {
  out << "  inputs: " << set.inputs.Describe() << "\n";
  PrintStepTable(model, set, out);
  PrintTopOperators(model, out);
  PrintResourceReport(model, set, out);
  PrintCpuSamplingReport(model, set, out);
}

}  // namespace aiprof::exporter
