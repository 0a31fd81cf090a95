// Low device utilisation: the share of the steps' time a GPU computes. TensorBoard's PyTorch
// profiler plugin flags a GPU below 0.5 (GPU Utilization = |∪ kernels ∩ steps| / steps
// time; trace-analysis-and-ui.md §2.2 and §2.3, rule 5). CPU-only runs have no device; the
// host_bound rule looks at their operators.
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

struct DeviceTotals {
  int32_t device = -1;
  int64_t computing = 0, communication = 0, free = 0, window = 0;
};

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("low_utilisation.utilisation");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const AnalysisSet& set = *input.profiles[p].analyses;
    if (!set.inputs.device_run) {
      outcome.NotEvaluated(p, "CPU-only run (no device)");
      continue;
    }
    std::map<uint32_t, DeviceTotals> devices;
    for (const StepBreakdownRow& row : set.step_breakdown.rows) {
      if (row.device_id < 0) continue;
      DeviceTotals& totals = devices[row.scope];
      totals.device = row.device_id;
      totals.computing += row.computing_ns;
      totals.communication += row.communication_ns;
      totals.free += row.free_ns;
      totals.window += StepDurationNs(row);
    }
    if (devices.empty()) {
      outcome.NotEvaluated(p, "no device tasks in the steps");
      continue;
    }
    double lowest = 1;
    int32_t lowest_device = -1;
    for (const auto& [scope, totals] : devices) {
      if (totals.window <= 0) continue;
      const double utilisation =
          static_cast<double>(totals.computing) / static_cast<double>(totals.window);
      if (utilisation < lowest) {
        lowest = utilisation;
        lowest_device = totals.device;
      }
    }
    const bool triggered = lowest < limit;
    outcome.Evaluated(p, 1 - lowest, triggered,
                      "GPU " + std::to_string(lowest_device) + " computes " + Percent(lowest) +
                          " of the steps' time (threshold " + Percent(limit) + ")");
    if (!triggered) continue;
    EvidenceTable& table =
        AddTable(finding, "Device time in the steps",
                 {"device", "computing", "communication", "free", "steps time", "utilisation"});
    for (const auto& [scope, totals] : devices) {
      AddRow(input, p, &table,
             {std::to_string(totals.device), Ms(totals.computing), Ms(totals.communication),
              Ms(totals.free), Ms(totals.window),
              Percent(totals.window > 0 ? static_cast<double>(totals.computing) /
                                              static_cast<double>(totals.window)
                                        : 0)});
    }
  }
  outcome.Finish(1 - thresholds.Get("low_utilisation.high_utilisation"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Keep the GPU fed: raise the batch size, overlap input copies with compute "
        "(pin_memory, non_blocking=True), and see the host-bound and data-loading findings for "
        "why the GPU waits.";
  }
}

}  // namespace

const RuleDefinition& LowUtilisationRule() {
  static const RuleDefinition rule{
      "low_utilisation",
      "Low device utilisation",
      {"step_breakdown", "overlap"},
      {{"low_utilisation.utilisation", 0.5, "share of step time",
        "device computing share below which utilisation is low",
        "TensorBoard PyTorch profiler plugin: GPU utilization < 0.5 "
        "(trace-analysis-and-ui.md §2.3, 5)"},
       {"low_utilisation.high_utilisation", 0.25, "share of step time",
        "utilisation below which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
