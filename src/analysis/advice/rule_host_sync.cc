// Host synchronisation stalls: the host thread blocks until the device is done
// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, and `.item()`, i.e.
// aten::item / aten::_local_scalar_dense, which copies a device scalar back). While it
// blocks, the device drains its queue; the cost is the device's idle time after the call
// returns, until the host has launched new work. So the rule judges that idle time, not
// the blocked time: in a device-bound loop (an H200 running FP32 GEMMs, a
// cudaDeviceSynchronize per step) the host blocked 68% of the steps while the device idled
// 3%, and removing the sync would not have made the step faster. msprof-analyze's advisor
// has a "synchronize stream" schedule check (ascend-msprof-formats.md §3.2); the share that
// makes it worth acting on is aiprof's choice.
#include <algorithm>

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
    const std::vector<const StepBreakdownRow*> rows = MainScopeRows(set);
    int64_t steps_ns = 0;
    for (const StepBreakdownRow* row : rows) steps_ns += row->host_end_ns - row->begin_ns;
    if (steps_ns <= 0) {
      outcome.NotEvaluated(p, "no steps");
      continue;
    }
    if (!profile.facts.has_device_activity) {
      outcome.NotEvaluated(p, "no device activity recorded (kernels, copies)");
      continue;
    }
    std::vector<std::pair<int64_t, int64_t>> spans;  // the steps, by begin
    for (const StepBreakdownRow* row : rows) spans.emplace_back(row->begin_ns, row->host_end_ns);
    std::sort(spans.begin(), spans.end());
    int64_t steps_end = INT64_MIN;
    for (const auto& span : spans) steps_end = std::max(steps_end, span.second);
    auto in_steps = [&spans](int64_t t) {
      auto next = std::upper_bound(spans.begin(), spans.end(), std::make_pair(t, INT64_MAX));
      return next != spans.begin() && t < std::prev(next)->second;
    };
    struct InSteps {
      const SyncCall* call;
      uint64_t count = 0;
      int64_t blocked_ns = 0, idle_after_ns = 0, longest_ns = 0;
    };
    std::vector<InSteps> calls;
    int64_t blocked_ns = 0, idle_after_ns = 0;
    for (const SyncCall& call : profile.facts.sync_calls) {
      InSteps sums{&call};
      for (const SyncWait& wait : call.waits) {
        if (!in_steps(wait.begin_ns)) continue;
        ++sums.count;
        sums.blocked_ns += wait.end_ns - wait.begin_ns;
        sums.idle_after_ns +=
            std::max<int64_t>(0, std::min(wait.device_idle_after_ns, steps_end - wait.end_ns));
        sums.longest_ns = std::max(sums.longest_ns, wait.end_ns - wait.begin_ns);
      }
      blocked_ns += sums.blocked_ns;
      idle_after_ns += sums.idle_after_ns;
      if (sums.count > 0) calls.push_back(sums);
    }
    const double share = static_cast<double>(idle_after_ns) / static_cast<double>(steps_ns);
    const bool triggered = share > limit;
    outcome.Evaluated(p, share, triggered,
                      "after the host synchronised, the device idled " + Percent(share) +
                          " of the steps' time until new work arrived (threshold " +
                          Percent(limit) + "); the host blocked " +
                          Percent(static_cast<double>(blocked_ns) / static_cast<double>(steps_ns)) +
                          " of it");
    if (!triggered) continue;
    std::sort(calls.begin(), calls.end(),
              [](const InSteps& a, const InSteps& b) { return a.idle_after_ns > b.idle_after_ns; });
    EvidenceTable& table =
        AddTable(finding, "Synchronising calls in the steps",
                 {"call", "count", "device idle after", "host blocked", "longest block"});
    for (const InSteps& call : calls) {
      AddRow(input, p, &table,
             {call.call->name, std::to_string(call.count), Ms(call.idle_after_ns),
              Ms(call.blocked_ns), Ms(call.longest_ns)},
             EvidenceTarget::Name(call.call->name));
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
        "device idle time after synchronising calls (until the host launches new work) above "
        "which they are a stall",
        "aiprof's choice"},
       {"host_sync.high_share", 0.20, "share of step time",
        "that idle share from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
