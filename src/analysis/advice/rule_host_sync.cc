// Host synchronisation stalls: time the host thread blocks until the device is done
// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, and `.item()`, i.e.
// aten::item / aten::_local_scalar_dense, which copies a device scalar back). While it
// blocks, it launches nothing, so the device drains. msprof-analyze's advisor has the same
// "synchronize stream" schedule check (ascend-msprof-formats.md §3.2); the share of step
// time that makes it worth acting on is aiprof's choice.
#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("host_sync.step_share");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileInput& profile = input.profiles[p];
    const AnalysisSet& set = *profile.analyses;
    if (!set.inputs.device_run) {
      outcome.NotEvaluated(p, "CPU-only run (no device to wait for)");
      continue;
    }
    if (!profile.facts.has_runtime_calls && profile.facts.sync_calls.empty()) {
      outcome.NotEvaluated(p, "no CUDA runtime API calls recorded");
      continue;
    }
    int64_t steps_ns = 0;
    for (const StepBreakdownRow* row : MainScopeRows(set))
      steps_ns += row->host_end_ns - row->begin_ns;
    if (steps_ns <= 0) {
      outcome.NotEvaluated(p, "no steps");
      continue;
    }
    int64_t sync_ns = 0;
    for (const SyncCall& call : profile.facts.sync_calls) sync_ns += call.total_ns;
    const double share = static_cast<double>(sync_ns) / static_cast<double>(steps_ns);
    const bool triggered = share > limit;
    outcome.Evaluated(p, share, triggered,
                      "the host blocks on the device " + Percent(share) +
                          " of the steps' time (threshold " + Percent(limit) + ")");
    if (!triggered) continue;
    EvidenceTable& table =
        AddTable(finding, "Synchronising calls", {"call", "count", "total", "longest"});
    for (const SyncCall& call : profile.facts.sync_calls) {
      AddRow(input, p, &table,
             {call.name, std::to_string(call.count), Ms(call.total_ns), Ms(call.max_ns)});
    }
  }
  outcome.Finish(thresholds.Get("host_sync.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Remove synchronisation from the step: no .item(), .cpu(), print or Python branches on "
        "device values inside the loop (accumulate on the device, read once per N steps); "
        "replace cudaDeviceSynchronize with events on the streams that need them; use "
        "non_blocking copies.";
  }
}

}  // namespace

const RuleDefinition& HostSyncRule() {
  static const RuleDefinition rule{
      "host_sync",
      "Host synchronisation stalls",
      {"CUDA runtime calls (synchronisation)", "step_breakdown"},
      {{"host_sync.step_share", 0.05, "share of step time",
        "time the host blocks on the device above which it is a stall", "aiprof's choice"},
       {"host_sync.high_share", 0.20, "share of step time",
        "blocked share from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
