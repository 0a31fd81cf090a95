// Small or inefficient kernels, from the launch shape of each kernel record: a grid with
// fewer blocks than the GPU has SMs leaves SMs idle (msprof's per-operator rule
// block_num / core_num < 1, ascend-msprof-formats.md §1.9; TensorBoard's kernel view "Mean
// Blocks Per SM < 1", trace-analysis-and-ui.md §2.5), and a low estimated achieved occupancy
// leaves the SMs' warps unused (the same view's "Mean Est. Achieved Occupancy").
#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kKernelsShown = 8;

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double blocks_limit = thresholds.Get("kernel_efficiency.blocks_per_sm");
  const double occupancy_limit = thresholds.Get("kernel_efficiency.occupancy_pct");
  const double share_limit = thresholds.Get("kernel_efficiency.kernel_share");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileFacts& facts = input.profiles[p].facts;
    if (!input.profiles[p].analyses->inputs.device_run) {
      outcome.NotEvaluated(p, "CPU-only run (no kernel records)");
      continue;
    }
    if (facts.kernels.empty() || facts.kernel_total_ns <= 0) {
      outcome.NotEvaluated(p, "no kernel launch shapes recorded (CUPTI kernel records)");
      continue;
    }
    int64_t small_ns = 0, low_ns = 0;
    std::vector<const KernelShape*> flagged;
    for (const KernelShape& kernel : facts.kernels) {
      const bool small = kernel.blocks_per_sm >= 0 && kernel.blocks_per_sm < blocks_limit;
      const bool low = kernel.occupancy_pct >= 0 && kernel.occupancy_pct < occupancy_limit;
      if (small) small_ns += kernel.total_ns;
      if (low) low_ns += kernel.total_ns;
      if (small || low) flagged.push_back(&kernel);
    }
    const double total = static_cast<double>(facts.kernel_total_ns);
    const double small_share = static_cast<double>(small_ns) / total;
    const double low_share = static_cast<double>(low_ns) / total;
    const double worst = std::max(small_share, low_share);
    const bool triggered = worst > share_limit;
    outcome.Evaluated(p, worst, triggered,
                      Percent(small_share) + " of kernel time in grids smaller than the GPU, " +
                          Percent(low_share) + " at low occupancy (threshold " +
                          Percent(share_limit) + " of kernel time)");
    if (!triggered) continue;
    EvidenceTable& table =
        AddTable(finding, "Kernels with small grids or low occupancy",
                 {"kernel", "calls", "total", "blocks per SM", "est. occupancy"});
    for (size_t i = 0; i < std::min(kKernelsShown, flagged.size()); ++i) {
      const KernelShape& kernel = *flagged[i];
      AddRow(input, p, &table,
             {kernel.name, std::to_string(kernel.count), Ms(kernel.total_ns),
              kernel.blocks_per_sm >= 0 ? Fixed(kernel.blocks_per_sm, 2) : "n/a",
              kernel.occupancy_pct >= 0 ? Fixed(kernel.occupancy_pct, 0) + "%" : "n/a"});
    }
  }
  outcome.Finish(thresholds.Get("kernel_efficiency.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Give kernels more parallel work: larger batches or fused operators so grids cover "
        "every SM; for custom kernels, more blocks (split the work), fewer registers or less "
        "shared memory per block to raise occupancy.";
  }
}

}  // namespace

const RuleDefinition& KernelEfficiencyRule() {
  static const RuleDefinition rule{
      "kernel_efficiency",
      "Small or low-occupancy kernels",
      {"kernel records (grid, block, est. achieved occupancy)"},
      {{"kernel_efficiency.blocks_per_sm", 1, "blocks per SM",
        "grid size per SM below which a kernel leaves SMs idle",
        "msprof rule block_num / core_num < 1 (ascend-msprof-formats.md §1.9); TensorBoard "
        "kernel view, Mean Blocks Per SM < 1 (trace-analysis-and-ui.md §2.5)"},
       {"kernel_efficiency.occupancy_pct", 25, "%",
        "estimated achieved occupancy below which a kernel is inefficient", "aiprof's choice"},
       {"kernel_efficiency.kernel_share", 0.10, "share of kernel time",
        "time in such kernels above which the advice is given", "aiprof's choice"},
       {"kernel_efficiency.high_share", 0.40, "share of kernel time",
        "share from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
