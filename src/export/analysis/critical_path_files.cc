#include "export/analysis/critical_path_files.h"

#include <string>
#include <vector>

namespace aiprof::exporter {

std::string_view CriticalPathSliceName(const model::Model& m, uint32_t slice) {
  return slice == model::kNoRow ? std::string_view() : m.Str(m.slices.name[slice]);
}

analysis::NearCriticalRow NearCriticalRowOf(const model::Model& m,
                                            const analysis::NearCriticalSlice& near,
                                            const analysis::CriticalPathStep& step,
                                            std::string_view thread_label) {
  const uint32_t thread = m.ThreadOfSlice(near.slice);
  return {near,
          m.processes.rank[m.ProcessOfThread(thread)],
          m.Str(m.slices.name[near.slice]),
          thread_label,
          m.slices.ts[near.slice],
          m.slices.end[near.slice],
          step.duration_ns()};
}

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

using analysis::CriticalPathResult;
using analysis::CriticalPathStep;

// The step as the user names it: N/A for a whole-run span.
void StepCell(SummaryWriter& w, const analysis::AnalysisSet& set, const CriticalPathStep& step) {
  if (set.critical_path.whole_run) {
    w.NotApplicable();
  } else {
    w.Step(step.step, step.loop, set.steps.several_loops);
  }
}

void WriteSteps(const model::Model& m, const analysis::AnalysisSet& set,
                const SummaryTarget& target) {
  const CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step"};
  AppendHeaders<analysis::CriticalPathStepRow>(headers, analysis::kCriticalPathStepColumns);
  for (const analysis::WhatIfSummary& w : r.what_ifs) {
    headers.push_back("Projected: " + w.spec.Describe() + "(us)");
  }
  SummaryWriter w(target, "critical_path_steps", headers, r.steps.size());
  for (const CriticalPathStep& step : r.steps) {
    StepCell(w, set, step);
    const std::string thread = CriticalPathThreadLabel(m, step.critical_thread);
    w.Cells<analysis::CriticalPathStepRow>(analysis::kCriticalPathStepColumns, {step, thread});
    for (int64_t projected : step.projected_ns) w.Micros(projected);
    w.EndRow();
  }
}

void WriteRanks(const analysis::AnalysisSet& set, const SummaryTarget& target) {
  const CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step"};
  AppendHeaders<analysis::CriticalPathRank>(headers, analysis::kCriticalPathRankColumns);
  SummaryWriter w(target, "critical_path_ranks", headers, r.ranks.size());
  for (const CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_rank; i < step.first_rank + step.rank_count; ++i) {
      StepCell(w, set, step);
      w.Cells<analysis::CriticalPathRank>(analysis::kCriticalPathRankColumns, r.ranks[i]);
      w.EndRow();
    }
  }
}

void WriteSegments(const model::Model& m, const analysis::AnalysisSet& set,
                   const SummaryTarget& target) {
  const CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step"};
  AppendHeaders<analysis::CriticalPathSegmentRow>(headers, analysis::kCriticalPathSegmentColumns);
  SummaryWriter w(target, "critical_path_segments", headers, r.segments.size());
  for (const CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const analysis::CriticalPathSegment s = r.Segment(m, step, i);
      StepCell(w, set, step);
      const std::string thread = CriticalPathThreadLabel(m, s.thread);
      w.Cells<analysis::CriticalPathSegmentRow>(analysis::kCriticalPathSegmentColumns,
                                                {s, CriticalPathSliceName(m, s.slice), thread});
      w.EndRow();
    }
  }
}

// The near-critical work of each step: what would be on the path next, least slack first.
void WriteSlack(const model::Model& m, const analysis::AnalysisSet& set,
                const SummaryTarget& target) {
  const CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers = {"Step"};
  AppendHeaders<analysis::NearCriticalRow>(headers, analysis::kNearCriticalColumns);
  SummaryWriter w(target, "critical_path_slack", headers, r.near_critical.size());
  for (const CriticalPathStep& step : r.steps) {
    for (uint32_t i = step.first_near; i < step.first_near + step.near_count; ++i) {
      const uint32_t thread = m.ThreadOfSlice(r.near_critical[i].slice);
      StepCell(w, set, step);
      w.Cells<analysis::NearCriticalRow>(
          analysis::kNearCriticalColumns,
          NearCriticalRowOf(m, r.near_critical[i], step, CriticalPathThreadLabel(m, thread)));
      w.EndRow();
    }
  }
}

void WriteWhatIfs(const analysis::AnalysisSet& set, const SummaryTarget& target) {
  const CriticalPathResult& r = set.critical_path;
  std::vector<std::string> headers;
  AppendHeaders<analysis::WhatIfRow>(headers, analysis::kWhatIfColumns);
  SummaryWriter w(target, "critical_path_what_if", headers, r.what_ifs.size());
  for (const analysis::WhatIfSummary& what_if : r.what_ifs) {
    w.Cells<analysis::WhatIfRow>(analysis::kWhatIfColumns,
                                 {what_if, what_if.step_ns, what_if.projected_ns, r.steps.size()});
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
