// Communication not overlapped: the steps' time spent communicating while nothing computes
// (msprof's Communication(Not Overlapped) from the step breakdown). TensorBoard's PyTorch
// profiler plugin recommends gradient compression / accumulation / bigger batches once
// communication exceeds 10% of the step (trace-analysis-and-ui.md §2.3, rule 4).
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

struct ScopeTotals {
  int32_t device = -1;
  int64_t communication = 0, not_overlapped = 0, window = 0;
};

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("communication_overlap.step_share");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileInput& profile = input.profiles[p];
    const AnalysisSet& set = *profile.analyses;
    if (set.communication.empty()) {
      outcome.NotEvaluated(p, "no communication operations");
      continue;
    }
    std::map<uint32_t, ScopeTotals> scopes;
    for (const StepBreakdownRow& row : set.step_breakdown.rows) {
      if (row.communication_ns == 0) continue;
      ScopeTotals& totals = scopes[row.scope];
      totals.device = row.device_id;
      totals.communication += row.communication_ns;
      totals.not_overlapped += row.communication_not_overlapped_ns;
      totals.window += StepDurationNs(row);
    }
    if (scopes.empty()) {
      outcome.NotEvaluated(p, "no communication inside the steps");
      continue;
    }
    double worst = 0;
    for (const auto& [scope, totals] : scopes) {
      if (totals.window > 0) {
        worst = std::max(
            worst, static_cast<double>(totals.not_overlapped) / static_cast<double>(totals.window));
      }
    }
    const bool triggered = worst > limit;
    outcome.Evaluated(p, worst, triggered,
                      "communication not hidden under compute takes " + Percent(worst) +
                          " of the step (threshold " + Percent(limit) + ")");
    if (!triggered) continue;
    EvidenceTable& table = AddTable(
        finding, "Communication per scope",
        {"scope", "communication", "not overlapped", "steps time", "not overlapped share"});
    for (const auto& [scope, totals] : scopes) {
      AddRow(input, p, &table,
             {totals.device >= 0 ? "GPU " + std::to_string(totals.device) : "host process",
              Ms(totals.communication), Ms(totals.not_overlapped), Ms(totals.window),
              Percent(totals.window > 0 ? static_cast<double>(totals.not_overlapped) /
                                              static_cast<double>(totals.window)
                                        : 0)});
    }
    EvidenceTable& ops = AddTable(finding, "Collectives by total time",
                                  {"operation", "count", "total", "mean", "bytes"});
    for (const CollectiveTime& op : profile.facts.collectives) {
      AddRow(input, p, &ops,
             {op.name, std::to_string(op.count), Ms(op.total_ns),
              Ms(op.total_ns / static_cast<int64_t>(op.count)),
              op.bytes > 0 ? Bytes(op.bytes) : "unknown"});
    }
  }
  outcome.Finish(thresholds.Get("communication_overlap.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Overlap communication with compute: let DDP/FSDP bucket gradients so all-reduces run "
        "during backward (tune bucket_cap_mb), avoid synchronising collectives in the step "
        "(barrier, blocking recv); reduce traffic with gradient accumulation, compression "
        "hooks or a larger batch per rank.";
  }
}

}  // namespace

const RuleDefinition& CommunicationOverlapRule() {
  static const RuleDefinition rule{
      "communication_overlap",
      "Communication not overlapped",
      {"step_breakdown", "overlap", "communication"},
      {{"communication_overlap.step_share", 0.10, "share of step time",
        "Communication(Not Overlapped) above which communication is exposed",
        "TensorBoard PyTorch profiler plugin: Communication / step > 0.10 "
        "(trace-analysis-and-ui.md §2.3, 4)"},
       {"communication_overlap.high_share", 0.30, "share of step time",
        "exposed communication from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
