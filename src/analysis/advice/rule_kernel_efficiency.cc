// Small or under-filled kernel launches, from the launch shape of each kernel record:
//   - a grid with fewer blocks than the GPU has SMs leaves SMs idle (msprof's per-operator
//     rule block_num / core_num < 1, ascend-msprof-formats.md §1.9; TensorBoard's kernel view
//     "Mean Blocks Per SM < 1", trace-analysis-and-ui.md §2.5);
//   - a low estimated achieved occupancy counts only where the launch itself wastes warp
//     slots: achieved clearly below the kernel's own theoretical occupancy (TensorBoard's
//     estimate is min(grid's warps per SM, theoretical), §2.2, so it falls below the
//     theoretical one only when the grid does not fill the SMs' slots), or the theoretical
//     occupancy is unknown. A kernel whose registers or shared memory cap its occupancy
//     (cuBLAS/CUTLASS GEMMs run at 12.5% by design, with grids that fill the GPU) is not an
//     inefficient launch: more parallel work would not help it. Its time and limit are said
//     in the detail, but it does not trigger the advice.
#include <algorithm>
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kKernelsShown = 8;

struct Limits {
  double blocks_per_sm, occupancy_pct, achieved_fraction;
};

enum class Verdict { kFine, kSmallGrid, kUnderFilled, kResourceCapped };

Verdict Judge(const KernelShape& kernel, const Limits& limits) {
  if (kernel.blocks_per_sm >= 0 && kernel.blocks_per_sm < limits.blocks_per_sm) {
    return Verdict::kSmallGrid;
  }
  if (kernel.occupancy_pct < 0 || kernel.occupancy_pct >= limits.occupancy_pct) {
    return Verdict::kFine;
  }
  const bool capped =
      kernel.theoretical_occupancy_pct > 0 &&
      kernel.occupancy_pct >= limits.achieved_fraction * kernel.theoretical_occupancy_pct;
  return capped ? Verdict::kResourceCapped : Verdict::kUnderFilled;
}

std::string Optional(double value, int decimals, const char* unit) {
  return value >= 0 ? Fixed(value, decimals) + unit : "n/a";
}

// "; 94.2% of kernel time at low occupancy capped by the kernels' own resources (REGS 94.2%),
// not counted", or "" when there is none.
std::string CappedNote(const std::map<std::string, int64_t>& capped_ns, double total) {
  int64_t all = 0;
  std::vector<std::pair<int64_t, std::string>> by_time;
  for (const auto& [limit, ns] : capped_ns) {
    all += ns;
    by_time.emplace_back(ns, limit.empty() ? "limit not recorded" : limit);
  }
  if (all == 0) return "";
  std::sort(by_time.rbegin(), by_time.rend());
  std::string limits;
  for (const auto& [ns, limit] : by_time) {
    limits += (limits.empty() ? "" : ", ") + limit + " " + Percent(static_cast<double>(ns) / total);
  }
  return "; " + Percent(static_cast<double>(all) / total) +
         " at low occupancy capped by the kernels' own resources (" + limits +
         "), not counted: more parallel work would not raise it";
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const Limits limits{thresholds.Get("kernel_efficiency.blocks_per_sm"),
                      thresholds.Get("kernel_efficiency.occupancy_pct"),
                      thresholds.Get("kernel_efficiency.achieved_fraction")};
  const double share_limit = thresholds.Get("kernel_efficiency.kernel_share");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileFacts& facts = input.profiles[p].facts;
    if (!input.profiles[p].analyses->inputs.device_run) {
      outcome.NotEvaluated(p, "CPU-only run (no kernel records)");
      continue;
    }
    const bool any_shape = std::any_of(
        facts.kernels.begin(), facts.kernels.end(),
        [](const KernelShape& k) { return k.blocks_per_sm >= 0 || k.occupancy_pct >= 0; });
    if (!any_shape || facts.kernel_total_ns <= 0) {
      outcome.NotEvaluated(p, "no kernel launch shapes recorded (CUPTI kernel records)");
      continue;
    }
    int64_t small_ns = 0, underfilled_ns = 0;
    std::map<std::string, int64_t> capped_ns;  // per occupancy limit
    std::vector<std::pair<const KernelShape*, Verdict>> flagged;
    for (const KernelShape& kernel : facts.kernels) {
      const Verdict verdict = Judge(kernel, limits);
      if (verdict == Verdict::kSmallGrid) small_ns += kernel.total_ns;
      if (verdict == Verdict::kUnderFilled) underfilled_ns += kernel.total_ns;
      if (verdict == Verdict::kResourceCapped) capped_ns[kernel.occupancy_limit] += kernel.total_ns;
      if (verdict == Verdict::kSmallGrid || verdict == Verdict::kUnderFilled) {
        flagged.emplace_back(&kernel, verdict);
      }
    }
    const double total = static_cast<double>(facts.kernel_total_ns);
    const double small_share = static_cast<double>(small_ns) / total;
    const double underfilled_share = static_cast<double>(underfilled_ns) / total;
    const double worst = std::max(small_share, underfilled_share);
    const bool triggered = worst > share_limit;
    outcome.Evaluated(
        p, worst, triggered,
        Percent(small_share) + " of kernel time in grids smaller than the GPU, " +
            Percent(underfilled_share) + " in under-filled launches: est. occupancy under " +
            Fixed(limits.occupancy_pct, 0) + "% and under " +
            Fixed(100 * limits.achieved_fraction, 0) + "% of the kernel's theoretical (threshold " +
            Percent(share_limit) + " of kernel time)" + CappedNote(capped_ns, total));
    if (!triggered) continue;
    EvidenceTable& table = AddTable(finding, "Kernels with small grids or under-filled launches",
                                    {"kernel", "why", "calls", "total", "blocks per SM",
                                     "est. occupancy", "theoretical occupancy", "limit"});
    for (size_t i = 0; i < std::min(kKernelsShown, flagged.size()); ++i) {
      const KernelShape& kernel = *flagged[i].first;
      AddRow(input, p, &table,
             {kernel.name, flagged[i].second == Verdict::kSmallGrid ? "small grid" : "under-filled",
              std::to_string(kernel.count), Ms(kernel.total_ns),
              Optional(kernel.blocks_per_sm, 2, ""), Optional(kernel.occupancy_pct, 0, "%"),
              Optional(kernel.theoretical_occupancy_pct, 1, "%"),
              kernel.occupancy_limit.empty() ? "n/a" : kernel.occupancy_limit},
             EvidenceTarget::Name(kernel.name));
    }
  }
  outcome.Finish(thresholds.Get("kernel_efficiency.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Give kernels more parallel work: larger batches or fused operators so grids cover "
        "every SM and fill the warp slots their registers and shared memory allow; for custom "
        "kernels, more blocks (split the work) or larger blocks.";
  }
}

}  // namespace

const RuleDefinition& KernelEfficiencyRule() {
  static const RuleDefinition rule{
      "kernel_efficiency",
      "Small or under-filled kernel launches",
      {"kernel records (grid, block, est. achieved and theoretical occupancy, occupancy limit)"},
      {{"kernel_efficiency.blocks_per_sm", 1, "blocks per SM",
        "grid size per SM below which a kernel leaves SMs idle",
        "msprof rule block_num / core_num < 1 (ascend-msprof-formats.md §1.9); TensorBoard "
        "kernel view, Mean Blocks Per SM < 1 (trace-analysis-and-ui.md §2.5)"},
       {"kernel_efficiency.occupancy_pct", 25, "%",
        "estimated achieved occupancy below which a kernel's occupancy is looked at",
        "aiprof's choice"},
       {"kernel_efficiency.achieved_fraction", 0.8, "fraction of theoretical occupancy",
        "achieved / theoretical occupancy below which the launch (grid or block shape) wastes "
        "warp slots; at or above it the kernel's registers or shared memory cap it and it is "
        "not counted",
        "aiprof's choice; the estimate is min(grid's warps per SM, theoretical occupancy) "
        "(TensorBoard, trace-analysis-and-ui.md §2.2)"},
       {"kernel_efficiency.kernel_share", 0.10, "share of kernel time",
        "time in such kernels above which the advice is given", "aiprof's choice"},
       {"kernel_efficiency.high_share", 0.40, "share of kernel time",
        "share from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
