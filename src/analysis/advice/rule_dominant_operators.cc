// Dominant operators and fusion candidates, from the operators' self time (device kernels on
// a GPU run, framework operators on a CPU-only run):
//   - one operator takes a large share of all operator time: the place to optimise first
//     (msprof-analyze's operator views and HTA's kernel breakdown list the top-N; the share
//     that makes one "dominant" is aiprof's choice);
//   - many calls per step of short operators: candidates for fusion (msprof-analyze
//     advisor's fusible operator sequences, ascend-msprof-formats.md §3.2; "short" is HTA's
//     typical launch cost, 5–20 µs, trace-analysis-and-ui.md §1.8).
#include <algorithm>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kTopShown = 5;

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double top_limit = thresholds.Get("dominant_operators.top_share");
  const double fusion_limit = thresholds.Get("dominant_operators.fusion_share");
  const double short_ns = thresholds.Get("dominant_operators.short_op_us") * 1e3;
  const double min_calls = thresholds.Get("dominant_operators.fusion_calls_per_step");
  PerProfile outcome(input, finding);
  double worst_top = 0;
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileFacts& facts = input.profiles[p].facts;
    if (facts.operators.empty() || facts.operator_self_ns <= 0) {
      outcome.NotEvaluated(p, "no operators or kernels recorded");
      continue;
    }
    const double total = static_cast<double>(facts.operator_self_ns);
    const double steps =
        static_cast<double>(std::max<size_t>(input.profiles[p].analyses->steps.steps.size(), 1));
    const OperatorTime& top = facts.operators.front();
    const double top_share = static_cast<double>(top.self_ns) / total;
    int64_t fusion_ns = 0;
    std::vector<const OperatorTime*> fusion;
    for (const OperatorTime& op : facts.operators) {
      if (op.mean_ns < short_ns && static_cast<double>(op.count) / steps >= min_calls) {
        fusion.push_back(&op);
        fusion_ns += op.self_ns;
      }
    }
    const double fusion_share = static_cast<double>(fusion_ns) / total;
    const bool triggered = top_share > top_limit || fusion_share > fusion_limit;
    const char* what = facts.device_operators ? "kernel" : "operator";
    outcome.Evaluated(p, top_share, triggered,
                      std::string(what) + " " + top.name + " takes " + Percent(top_share) +
                          " of operator time (threshold " + Percent(top_limit) + "); " +
                          std::to_string(fusion.size()) + " fusion candidate(s) take " +
                          Percent(fusion_share) + " (threshold " + Percent(fusion_limit) + ")");
    worst_top = std::max(worst_top, top_share);
    if (!triggered) continue;
    EvidenceTable& table = AddTable(finding, "Top operators by self time",
                                    {"operator", "calls", "self time", "share", "mean"});
    for (size_t i = 0; i < std::min(kTopShown, facts.operators.size()); ++i) {
      const OperatorTime& op = facts.operators[i];
      AddRow(input, p, &table,
             {op.name, std::to_string(op.count), Ms(op.self_ns),
              Percent(static_cast<double>(op.self_ns) / total), Us(op.mean_ns)},
             EvidenceTarget::Name(op.name));
    }
    if (fusion.empty()) continue;
    if (fusion.size() > kTopShown) fusion.resize(kTopShown);
    EvidenceTable& candidates = AddTable(finding, "Fusion candidates (many short calls)",
                                         {"operator", "calls per step", "mean", "self time"});
    for (const OperatorTime* op : fusion) {
      AddRow(input, p, &candidates,
             {op->name, Fixed(static_cast<double>(op->count) / steps, 1), Us(op->mean_ns),
              Ms(op->self_ns)},
             EvidenceTarget::Name(op->name));
    }
  }
  outcome.Finish(2);  // informational: never high, adjusted below
  if (!outcome.any_triggered()) return;
  finding->severity = worst_top >= thresholds.Get("dominant_operators.medium_share")
                          ? Severity::kMedium
                          : Severity::kLow;
  finding->impact = worst_top;
  finding->suggestion =
      "Optimise the top operator first (a better algorithm or library kernel, lower precision "
      "with AMP, Tensor Cores via aligned shapes); fuse chains of short element-wise operators "
      "(torch.compile, fused optimizers with foreach/fused=True, fused layers).";
}

}  // namespace

const RuleDefinition& DominantOperatorsRule() {
  static const RuleDefinition rule{
      "dominant_operators",
      "Dominant operators and fusion candidates",
      {"operators (self time per name)", "steps"},
      {{"dominant_operators.top_share", 0.30, "share of operator time",
        "self-time share above which one operator dominates", "aiprof's choice"},
       {"dominant_operators.medium_share", 0.60, "share of operator time",
        "top share from which the advice is medium (else low) severity", "aiprof's choice"},
       {"dominant_operators.fusion_share", 0.10, "share of operator time",
        "time in fusion candidates above which fusion is advised", "aiprof's choice"},
       {"dominant_operators.short_op_us", 20, "µs",
        "mean duration below which an operator is short",
        "HTA: a CPU launch usually costs 5–20 µs (trace-analysis-and-ui.md §1.8)"},
       {"dominant_operators.fusion_calls_per_step", 10, "calls per step",
        "calls per step from which a short operator is a fusion candidate", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
