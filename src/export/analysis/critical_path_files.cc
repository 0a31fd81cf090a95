#include "export/analysis/critical_path_files.h"

#include <string>
#include <vector>

namespace aiprof::exporter {

std::string CriticalPathThreadLabel(const model::Model& m, uint32_t thread) {
  if (thread == model::kNoRow) return "all ranks";
  const uint32_t process = m.threads.process[thread];
  const int32_t device = m.processes.device_id[process];
  if (device >= 0) {
    return "GPU " + std::to_string(device) + " stream " + std::to_string(m.threads.tid[thread]);
  }
  std::string name(m.Str(m.threads.name[thread]));
  if (name.empty()) name = std::string(m.Str(m.processes.name[process]));
  return name + " " + std::to_string(m.processes.pid[process]) + "/" +
         std::to_string(m.threads.tid[thread]);
}

namespace {

using analysis::CategoryTimes;
using analysis::kPathCategoryCount;
using analysis::PathCategory;

std::vector<std::string> CategoryHeaders(const std::string& suffix) {
  std::vector<std::string> headers;
  for (int c = 0; c < kPathCategoryCount; ++c) {
    headers.push_back(std::string(analysis::PathCategoryName(static_cast<PathCategory>(c))) +
                      suffix);
  }
  return headers;
}

void Categories(SummaryWriter& w, const CategoryTimes& times) {
  for (int64_t ns : times.ns) w.Micros(ns);
}

void WriteSteps(const model::Model& m, const analysis::AnalysisSet& set,
                const SummaryTarget& target) {
  const analysis::CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step",          "Ranks",         "Begin(us)",
                                      "Step Time(us)", "Critical Rank", "Critical Thread"};
  for (const std::string& h : CategoryHeaders("(us)")) headers.push_back(h);
  for (const analysis::WhatIfSummary& w : r.what_ifs) {
    headers.push_back("Projected: " + w.spec.Describe() + "(us)");
  }
  SummaryWriter w(target, "critical_path_steps", headers, r.steps.size());
  for (const analysis::CriticalPathStep& step : r.steps) {
    if (r.whole_run) {
      w.NotApplicable();
    } else {
      w.Step(step.step, step.loop, set.steps.several_loops);
    }
    w.Unsigned(step.rank_count).Micros(step.begin_ns).Micros(step.duration_ns());
    w.Number(step.critical_rank).Text(CriticalPathThreadLabel(m, step.critical_thread));
    Categories(w, step.attribution);
    for (int64_t projected : step.projected_ns) w.Micros(projected);
    w.EndRow();
  }
}

void WriteRanks(const analysis::AnalysisSet& set, const SummaryTarget& target) {
  const analysis::CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step", "Rank", "Step Time(us)"};
  for (const std::string& h : CategoryHeaders("(us)")) headers.push_back(h);
  headers.push_back("On Job Path(us)");
  SummaryWriter w(target, "critical_path_ranks", headers, r.ranks.size());
  for (const analysis::CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_rank; i < step.first_rank + step.rank_count; ++i) {
      const analysis::CriticalPathRank& rank = r.ranks[i];
      if (r.whole_run) {
        w.NotApplicable();
      } else {
        w.Step(step.step, step.loop, set.steps.several_loops);
      }
      w.Number(rank.rank).Micros(rank.end_ns - rank.begin_ns);
      Categories(w, rank.own);
      w.Micros(rank.on_job_path_ns);
      w.EndRow();
    }
  }
}

void WriteSegments(const model::Model& m, const analysis::AnalysisSet& set,
                   const SummaryTarget& target) {
  const analysis::CriticalPathResult& r = set.critical_path;
  SummaryWriter w(
      target, "critical_path_segments",
      {"Step", "Begin(us)", "Duration(us)", "Category", "Name", "Kind", "Thread", "Rank"},
      r.segments.size());
  for (const analysis::CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const analysis::CriticalPathSegment s = r.Segment(m, step, i);
      if (r.whole_run) {
        w.NotApplicable();
      } else {
        w.Step(step.step, step.loop, set.steps.several_loops);
      }
      w.Micros(s.begin_ns).Micros(s.end_ns - s.begin_ns);
      w.PlainText(analysis::PathCategoryName(s.category));
      w.Text(s.slice == model::kNoRow ? "" : m.Str(m.slices.name[s.slice]));
      w.PlainText(s.latency ? "latency" : (s.slice == model::kNoRow ? "gap" : "self"));
      w.Text(CriticalPathThreadLabel(m, s.thread)).Number(s.rank);
      w.EndRow();
    }
  }
}

// The near-critical work of each step: what would be on the path next, least slack first.
void WriteSlack(const model::Model& m, const analysis::AnalysisSet& set,
                const SummaryTarget& target) {
  const analysis::CriticalPathResult& r = set.critical_path;
  SummaryWriter w(target, "critical_path_slack",
                  {"Step", "Rank", "Name", "Category", "Thread", "Begin(us)", "Duration(us)",
                   "Slack(us)", "Slack(%)"},
                  r.near_critical.size());
  for (const analysis::CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_near; i < step.first_near + step.near_count; ++i) {
      const analysis::NearCriticalSlice& near = r.near_critical[i];
      const uint32_t thread = m.ThreadOfSlice(near.slice);
      if (r.whole_run) {
        w.NotApplicable();
      } else {
        w.Step(step.step, step.loop, set.steps.several_loops);
      }
      w.Number(m.processes.rank[m.ProcessOfThread(thread)]);
      w.Text(m.Str(m.slices.name[near.slice])).PlainText(analysis::PathCategoryName(near.category));
      w.Text(CriticalPathThreadLabel(m, thread));
      w.Micros(m.slices.ts[near.slice]).Micros(m.slices.dur(near.slice)).Micros(near.slack_ns);
      w.Fixed(step.duration_ns() > 0 ? 100.0 * static_cast<double>(near.slack_ns) /
                                           static_cast<double>(step.duration_ns())
                                     : 0.0,
              2);
      w.EndRow();
    }
  }
}

void WriteWhatIfs(const analysis::AnalysisSet& set, const SummaryTarget& target) {
  const analysis::CriticalPathResult& r = set.critical_path;
  SummaryWriter w(target, "critical_path_what_if",
                  {"What-if", "Kind", "Target", "Applicable", "Steps", "Step Time(us)",
                   "Projected(us)", "Saving(us)", "Saving(%)"},
                  r.what_ifs.size());
  for (const analysis::WhatIfSummary& what_if : r.what_ifs) {
    w.Text(what_if.spec.Describe()).PlainText(analysis::WhatIfKindKey(what_if.spec.kind));
    w.Text(what_if.spec.name).PlainText(what_if.applicable ? "yes" : "no");
    w.Unsigned(r.steps.size()).Micros(what_if.step_ns).Micros(what_if.projected_ns);
    w.Micros(what_if.saving_ns()).Fixed(100.0 * what_if.saving_share(), 2);
    w.EndRow();
  }
}

}  // namespace

void WriteCriticalPathFiles(const model::Model& model, const analysis::AnalysisSet& set,
                            const SummaryTarget& target) {
  if (set.critical_path.steps.empty()) return;
  WriteSteps(model, set, target);
  WriteRanks(set, target);
  WriteSegments(model, set, target);
  WriteSlack(model, set, target);
  WriteWhatIfs(set, target);
}

}  // namespace aiprof::exporter
