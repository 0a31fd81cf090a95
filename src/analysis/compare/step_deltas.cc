// Step-breakdown deltas: the scopes (devices, or host processes on CPU-only runs) of the two
// sides are paired by device and rank in order, then their steps by position.
#include <string>

#include "analysis/compare/run_comparison.h"

namespace aiprof::analysis {
namespace {

StepFigures FiguresOf(const StepBreakdownRow& row) {
  StepFigures f{};
  f[static_cast<size_t>(StepFigure::kStepTime)] = static_cast<double>(row.end_ns - row.begin_ns);
  f[static_cast<size_t>(StepFigure::kComputing)] = static_cast<double>(row.computing_ns);
  f[static_cast<size_t>(StepFigure::kCommunicationNotOverlapped)] =
      static_cast<double>(row.communication_not_overlapped_ns);
  f[static_cast<size_t>(StepFigure::kCommunication)] = static_cast<double>(row.communication_ns);
  f[static_cast<size_t>(StepFigure::kFree)] = static_cast<double>(row.free_ns);
  f[static_cast<size_t>(StepFigure::kPreparing)] = static_cast<double>(row.preparing_ns);
  return f;
}

StepFigures MeanOf(const std::vector<const StepBreakdownRow*>& rows) {
  StepFigures mean{};
  for (const StepBreakdownRow* row : rows) {
    const StepFigures f = FiguresOf(*row);
    for (size_t i = 0; i < kStepFigureCount; ++i) mean[i] += f[i];
  }
  if (!rows.empty()) {
    for (double& value : mean) value /= static_cast<double>(rows.size());
  }
  return mean;
}

// The step breakdown rows of each scope, in step order.
std::vector<std::vector<const StepBreakdownRow*>> RowsByScope(const AnalysisSet& set) {
  std::vector<std::vector<const StepBreakdownRow*>> by_scope(set.overlap.scopes.size());
  for (const StepBreakdownRow& row : set.step_breakdown.rows) {
    if (row.scope < by_scope.size()) by_scope[row.scope].push_back(&row);
  }
  return by_scope;
}

std::string ScopeText(const model::Model& m, const OverlapScope& scope) {
  return scope.device_id >= 0 ? "device " + std::to_string(scope.device_id)
                              : "host process " + std::to_string(m.processes.pid[scope.process]);
}

}  // namespace

std::string_view StepFigureName(StepFigure figure) {
  switch (figure) {
    case StepFigure::kStepTime:
      return "Step Time";
    case StepFigure::kComputing:
      return "Computing";
    case StepFigure::kCommunicationNotOverlapped:
      return "Communication(Not Overlapped)";
    case StepFigure::kCommunication:
      return "Communication";
    case StepFigure::kFree:
      return "Free";
    case StepFigure::kPreparing:
      break;
  }
  return "Preparing";
}

std::vector<StepDelta> CompareSteps(const model::Model& base_model, const AnalysisSet& base,
                                    const model::Model& comparison_model,
                                    const AnalysisSet& comparison,
                                    std::vector<std::string>* notes) {
  const auto base_rows = RowsByScope(base);
  const auto comparison_rows = RowsByScope(comparison);
  const std::vector<OverlapScope>& bs = base.overlap.scopes;
  const std::vector<OverlapScope>& cs = comparison.overlap.scopes;
  std::vector<bool> taken(cs.size(), false);
  std::vector<StepDelta> out;
  for (size_t b = 0; b < bs.size(); ++b) {
    if (base_rows[b].empty()) continue;
    size_t c = 0;
    while (c < cs.size() && (taken[c] || comparison_rows[c].empty() ||
                             cs[c].device_id != bs[b].device_id || cs[c].rank != bs[b].rank)) {
      ++c;
    }
    if (c == cs.size()) {
      notes->push_back("only the base run has " + ScopeText(base_model, bs[b]) +
                       (bs[b].rank >= 0 ? " (rank " + std::to_string(bs[b].rank) + ")" : "") +
                       "; its steps are not compared");
      continue;
    }
    taken[c] = true;
    StepDelta scope;
    scope.device_id = bs[b].device_id;
    scope.rank = bs[b].rank;
    scope.base_pid = base_model.processes.pid[bs[b].process];
    scope.comparison_pid = comparison_model.processes.pid[cs[c].process];
    const auto& base_steps = base_rows[b];
    const auto& comparison_steps = comparison_rows[c];
    for (size_t i = 0; i < base_steps.size() && i < comparison_steps.size(); ++i) {
      StepDelta row = scope;
      row.base_step = base_steps[i]->step;
      row.comparison_step = comparison_steps[i]->step;
      row.base = FiguresOf(*base_steps[i]);
      row.comparison = FiguresOf(*comparison_steps[i]);
      out.push_back(row);
    }
    StepDelta mean = scope;
    mean.mean = true;
    mean.base_steps = base_steps.size();
    mean.comparison_steps = comparison_steps.size();
    mean.base = MeanOf(base_steps);
    mean.comparison = MeanOf(comparison_steps);
    out.push_back(mean);
  }
  for (size_t c = 0; c < cs.size(); ++c) {
    if (taken[c] || comparison_rows[c].empty()) continue;
    notes->push_back("only the comparison run has " + ScopeText(comparison_model, cs[c]) +
                     (cs[c].rank >= 0 ? " (rank " + std::to_string(cs[c].rank) + ")" : "") +
                     "; its steps are not compared");
  }
  return out;
}

}  // namespace aiprof::analysis
