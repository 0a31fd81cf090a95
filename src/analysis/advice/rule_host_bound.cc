// Host / launch bound: the device (or, on a CPU-only run, the operators) waits for the host.
//   CUDA: HTA's idle-time split within the steps (host_wait: the next kernel's launch call
//   started after the stream drained; the whole run when there are no steps) and launch
//   statistics (short kernels: the kernel ran shorter than its launch call) —
//   trace-analysis-and-ui.md §1.4, §1.8.
//   CPU-only: the step's time in operators shorter than HTA's runtime cutoff (50 µs: their
//   cost is mostly dispatch) plus its time outside any operator and outside the input wait
//   (interpreter overhead): above half the step, the job is bound by issuing many tiny
//   operators.
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

void EvaluateDevice(const AdviceInput& input, size_t p, const Thresholds& thresholds,
                    PerProfile* outcome, Finding* finding) {
  const AnalysisSet& set = *input.profiles[p].analyses;
  // Within the steps when there are steps: start-up (imports, CUDA initialisation, warm-up)
  // is the device waiting for a host that is not yet launching; on the H200 it made a
  // device-bound loop (96.6% computing in its steps) read as 83% host wait.
  const bool in_steps = !set.steps.steps.empty();
  const IdleTimeResult& idle = in_steps ? set.idle_time_in_steps : set.idle_time;
  int64_t host_wait = 0, lane_time = 0;
  bool launches = false;
  for (const IdleTimeRow& lane : idle.lanes) {
    if (!lane.has_launches) continue;
    launches = true;
    host_wait += lane.host_wait_ns;
    lane_time += lane.busy_ns + lane.idle_ns();
  }
  if (!launches || lane_time <= 0) {
    outcome->NotEvaluated(p, "no launch → kernel flows (record the CUDA runtime API)");
    return;
  }
  const LaunchStatistics& stats = set.kernel_breakdown.launches;
  const double wait_share = static_cast<double>(host_wait) / static_cast<double>(lane_time);
  const double short_share = stats.launches > 0 ? static_cast<double>(stats.short_kernels) /
                                                      static_cast<double>(stats.launches)
                                                : 0;
  const double wait_limit = thresholds.Get("host_bound.host_wait_share");
  const double short_limit = thresholds.Get("host_bound.short_kernel_share");
  const bool triggered = wait_share > wait_limit || short_share > short_limit;
  outcome->Evaluated(
      p, std::max(wait_share, short_share), triggered,
      "streams wait for the host " + Percent(wait_share) + " of their time" +
          (in_steps ? " in the steps" : "") + " (threshold " + Percent(wait_limit) + "); " +
          Percent(short_share) + " of the run's " + std::to_string(stats.launches) +
          " kernels run shorter than their launch call (threshold " + Percent(short_limit) + ")");
  if (!triggered) return;
  EvidenceTable& lanes = AddTable(finding, "Streams waiting for the host",
                                  {"stream", "busy", "host wait", "kernel wait", "other idle"});
  for (const IdleTimeRow& lane : idle.lanes) {
    if (!lane.has_launches) continue;
    AddRow(input, p, &lanes,
           {std::to_string(lane.thread), Ms(lane.busy_ns), Ms(lane.host_wait_ns),
            Ms(lane.kernel_wait_ns), Ms(lane.other_ns)});
  }
  // Long launch delays mean kernels queued behind earlier work (the device was busy):
  // context for the reader, not evidence of a host-bound job.
  EvidenceTable& launch = AddTable(finding, "Kernel launches (the whole run)",
                                   {"launches", "short kernels", "launch-delay outliers",
                                    "max launch delay", "mean launch delay"});
  AddRow(input, p, &launch,
         {std::to_string(stats.launches), std::to_string(stats.short_kernels),
          std::to_string(stats.launch_delay_outliers), Ms(stats.max_launch_delay_ns),
          Ms(stats.mean_launch_delay_ns())});
}

void EvaluateHost(const AdviceInput& input, size_t p, const Thresholds& thresholds,
                  PerProfile* outcome, Finding* finding) {
  const ProfileInput& profile = input.profiles[p];
  const AnalysisSet& set = *profile.analyses;
  std::vector<const StepBreakdownRow*> rows = MainScopeRows(set);
  if (rows.empty() || set.steps.steps.empty()) {
    outcome->NotEvaluated(p, "no steps with operators");
    return;
  }
  if (profile.facts.operators.empty() || profile.facts.device_operators) {
    outcome->NotEvaluated(p, "no framework operators in the steps");
    return;
  }
  int64_t gap = 0, total = 0;
  for (const StepBreakdownRow* row : rows) {
    gap += row->idle_ns();
    total += StepDurationNs(*row);
  }
  if (total <= 0) {
    outcome->NotEvaluated(p, "steps of zero length");
    return;
  }
  const double short_op_ns = thresholds.Get("host_bound.short_op_us") * 1e3;
  int64_t short_self = 0;
  uint64_t short_calls = 0;
  std::vector<const OperatorTime*> tiny;
  for (const OperatorTime& op : profile.facts.operators) {
    if (op.mean_ns >= short_op_ns) continue;
    short_self += op.self_ns;
    short_calls += op.count;
    tiny.push_back(&op);
  }
  const double steps = static_cast<double>(rows.size());
  const double gap_share = static_cast<double>(gap) / static_cast<double>(total);
  const double short_share = static_cast<double>(short_self) / static_cast<double>(total);
  const double share = gap_share + short_share;
  const double limit = thresholds.Get("host_bound.cpu_dispatch_share");
  const bool triggered = share > limit;
  outcome->Evaluated(p, share, triggered,
                     Percent(share) + " of step time goes to operators shorter than " +
                         Us(short_op_ns) + " (" + Percent(short_share) + ", " +
                         Fixed(static_cast<double>(short_calls) / steps, 0) +
                         " calls per step) and to the host between operators (" +
                         Percent(gap_share) + "); threshold " + Percent(limit));
  if (!triggered) return;
  std::sort(tiny.begin(), tiny.end(),
            [](const OperatorTime* a, const OperatorTime* b) { return a->self_ns > b->self_ns; });
  if (tiny.size() > 5) tiny.resize(5);
  EvidenceTable& table = AddTable(finding, "Short operators by self time",
                                  {"operator", "calls per step", "mean", "self time"});
  for (const OperatorTime* op : tiny) {
    AddRow(input, p, &table,
           {op->name, Fixed(static_cast<double>(op->count) / steps, 1), Us(op->mean_ns),
            Ms(op->self_ns)},
           EvidenceTarget::Name(op->name));
  }
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    if (input.profiles[p].analyses->idle_time.source == ActivitySource::kDevice) {
      EvaluateDevice(input, p, thresholds, &outcome, finding);
    } else {
      EvaluateHost(input, p, thresholds, &outcome, finding);
    }
  }
  outcome.Finish(thresholds.Get("host_bound.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Give each launch or operator more work: larger batches, fewer and bigger operators "
        "(torch.compile or fused kernels, e.g. fused optimizers and foreach ops), CUDA graphs to "
        "replay many small kernels with one launch; keep Python work out of the step loop.";
  }
}

}  // namespace

const RuleDefinition& HostBoundRule() {
  static const RuleDefinition rule{
      "host_bound",
      "Host / launch bound",
      {"idle_time", "kernel_breakdown", "step_breakdown", "data_preparation"},
      {{"host_bound.host_wait_share", 0.10, "share of stream time",
        "CUDA: time streams sit idle waiting for the next launch (HTA host_wait)",
        "aiprof's choice over HTA's idle-time categories (trace-analysis-and-ui.md §1.4)"},
       {"host_bound.short_kernel_share", 0.5, "share of launches",
        "CUDA: kernels shorter than their launch call (HTA short kernels, runtime cutoff 50 µs)",
        "aiprof's choice over HTA get_cuda_kernel_launch_stats (trace-analysis-and-ui.md §1.8)"},
       {"host_bound.cpu_dispatch_share", 0.5, "share of step time",
        "CPU-only: step time in short operators plus time between operators (input wait "
        "excepted)",
        "aiprof's choice"},
       {"host_bound.short_op_us", 50, "µs",
        "CPU-only: mean operator duration below which an operator is short (dispatch-bound)",
        "HTA runtime_cutoff 50 µs (trace-analysis-and-ui.md §1.8)"},
       {"host_bound.high_share", 0.75, "share",
        "figure compared (CUDA: host-wait or short-kernel share; CPU-only: dispatch share) from "
        "which the advice is high severity",
        "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
