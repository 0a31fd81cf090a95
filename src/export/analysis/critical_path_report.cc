#include "export/analysis/critical_path_report.h"

#include <algorithm>
#include <ostream>
#include <string>

#include "export/analysis/analysis_report.h"
#include "export/analysis/critical_path_files.h"
#include "export/analysis/report_format.h"

namespace aiprof::exporter {
namespace {

using analysis::CategoryTimes;
using analysis::PathCategory;
using report::Line;
using report::Ms;
using report::Percent;

// "compute 61.2%, data loading 30.1%, idle 8.7%": the categories with time, largest first.
std::string Shares(const CategoryTimes& times) {
  const int64_t total = times.total();
  std::vector<int> order;
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    if (times.ns[c] > 0) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return times.ns[a] > times.ns[b]; });
  std::string text;
  for (int c : order) {
    if (!text.empty()) text += ", ";
    text += Line("%s %.1f%%",
                 std::string(analysis::PathCategoryName(static_cast<PathCategory>(c))).c_str(),
                 Percent(times.ns[c], total));
  }
  return text.empty() ? "nothing" : text;
}

std::string StepName(const analysis::AnalysisSet& set, const analysis::CriticalPathStep& step) {
  return set.critical_path.whole_run ? "all" : set.steps.Label(step.step, step.loop);
}

void PrintStep(const model::Model& m, const analysis::AnalysisSet& set,
               const analysis::CriticalPathStep& step, std::ostream& out) {
  const analysis::CriticalPathResult& r = set.critical_path;
  out << Line("    step %-6s %9.3f ms: ", StepName(set, step).c_str(), Ms(step.duration_ns()))
      << Shares(step.attribution) << "\n";
  std::string where = "      critical: " + CriticalPathThreadLabel(m, step.critical_thread);
  if (step.rank_count > 1) where += " (rank " + std::to_string(step.critical_rank) + ")";
  out << where << "; longest:";
  for (size_t i = 0; i < std::min<size_t>(step.top_items.size(), 3); ++i) {
    const analysis::CriticalPathItem& item = step.top_items[i];
    out << (i ? "," : "") << " " << m.Str(item.name) << " " << Line("%.3f ms", Ms(item.ns)) << " ("
        << analysis::PathCategoryName(item.category) << ")";
  }
  out << "\n";
  if (step.near_count > 0) {
    out << "      near-critical (least slack off the path):";
    for (uint32_t i = step.first_near; i < step.first_near + std::min(step.near_count, 3u); ++i) {
      const analysis::NearCriticalSlice& near = r.near_critical[i];
      out << (i > step.first_near ? "," : "") << " " << m.Str(m.slices.name[near.slice])
          << Line(" (slack %.3f ms)", Ms(near.slack_ns));
    }
    out << "\n";
  }
  if (step.rank_count < 2) return;
  for (uint32_t i = step.first_rank; i < step.first_rank + step.rank_count; ++i) {
    const analysis::CriticalPathRank& rank = r.ranks[i];
    out << Line("      rank %-3d %9.3f ms own path: ", rank.rank, Ms(rank.end_ns - rank.begin_ns))
        << Shares(rank.own) << Line("; on the job's path %.3f ms", Ms(rank.on_job_path_ns)) << "\n";
  }
}

}  // namespace

void PrintCriticalPathReport(const model::Model& m, const analysis::AnalysisSet& set,
                             std::ostream& out) {
  const analysis::CriticalPathResult& r = set.critical_path;
  if (r.steps.empty()) {
    out << "  critical path: no steps and no host activity to follow\n";
    return;
  }
  out << "  critical path (" << r.steps.size() << (r.whole_run ? " process span(s)" : " step(s)")
      << Line(", %.3f ms): ", Ms(r.step_ns)) << Shares(r.attribution) << "\n";
  for (size_t i = 0; i < r.steps.size() && i < kReportStepRows; ++i)
    PrintStep(m, set, r.steps[i], out);
  if (r.steps.size() > kReportStepRows) {
    out << "    ... " << r.steps.size() - kReportStepRows
        << " more step(s) in critical_path_steps.csv\n";
  }
  out << "  what if (re-solved on each step's graph):\n";
  std::vector<const analysis::WhatIfSummary*> ranked;
  for (const analysis::WhatIfSummary& w : r.what_ifs) ranked.push_back(&w);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto* a, const auto* b) { return a->saving_ns() > b->saving_ns(); });
  for (const analysis::WhatIfSummary* w : ranked) {
    if (!w->applicable) {
      out << "    " << w->spec.Describe() << ": not applicable (nothing of it in the steps)\n";
      continue;
    }
    out << Line("    %-44s %10.3f ms -> %10.3f ms, saves %.1f%%\n", w->spec.Describe().c_str(),
                Ms(w->step_ns), Ms(w->projected_ns), 100.0 * w->saving_share());
  }
  if (r.dropped_edges > 0) {
    out << "  note: " << r.dropped_edges
        << " dependencies contradicted by the recorded times (clocks of two processes or hosts"
           " disagreeing) were left out\n";
  }
}

}  // namespace aiprof::exporter
