// Slow or unstable steps: steps far slower than the typical one, with the part of the step
// that grew. A step is an outlier when it is more than 20% above the median step (msprof's
// trailing check, "step time ratio > 20%", ascend-msprof-formats.md §1.9) and beyond three
// robust standard deviations (1.4826 × MAD) of it (msprof-analyze's slow_rank recipe uses a
// 3σ test, §3.1). Only the first step slow is warm-up (low severity).
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kOutliersShown = 10;

struct Parts {
  double computing = 0, communication = 0, idle = 0, input = 0;
};

// The step breakdown's additive parts: input wait and idle split its Free time.
Parts PartsOf(const StepBreakdownRow& row) {
  Parts parts;
  parts.computing = static_cast<double>(row.computing_ns);
  parts.communication = static_cast<double>(row.communication_not_overlapped_ns);
  parts.input = static_cast<double>(row.input_wait_ns);
  parts.idle = static_cast<double>(row.idle_ns());
  return parts;
}

// The part that grew most over its median: the outlier's cause.
std::string Cause(const Parts& step, const Parts& median) {
  const std::pair<double, const char*> growth[] = {
      {step.computing - median.computing, "computing"},
      {step.communication - median.communication, "communication not overlapped"},
      {step.input - median.input, "input wait"},
      {step.idle - median.idle, "idle (host work between tasks)"}};
  const auto* largest =
      std::max_element(std::begin(growth), std::end(growth),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
  return largest->first > 0
             ? std::string(largest->second) + " +" + Ms(static_cast<int64_t>(largest->first))
             : "no single part";
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double ratio = thresholds.Get("slow_steps.median_ratio");
  const double sigmas = thresholds.Get("slow_steps.robust_sigmas");
  const size_t min_steps = static_cast<size_t>(thresholds.Get("slow_steps.min_steps"));
  PerProfile outcome(input, finding);
  bool only_warmup = true;
  double worst_impact = 0;
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const AnalysisSet& set = *input.profiles[p].analyses;
    std::vector<const StepBreakdownRow*> rows = MainScopeRows(set);
    if (set.steps.steps.empty() || rows.size() < min_steps) {
      outcome.NotEvaluated(p, "fewer than " + std::to_string(min_steps) + " steps (" +
                                  std::to_string(set.steps.steps.size()) + ")");
      continue;
    }
    std::vector<double> durations;
    std::vector<Parts> parts;
    for (const StepBreakdownRow* row : rows) {
      durations.push_back(static_cast<double>(StepDurationNs(*row)));
      parts.push_back(PartsOf(*row));
    }
    const double median = Median(durations);
    std::vector<double> deviations;
    for (double d : durations) deviations.push_back(std::abs(d - median));
    const double robust_sigma = 1.4826 * Median(deviations);
    Parts median_parts;
    auto median_of = [&](double Parts::*field) {
      std::vector<double> values;
      for (const Parts& part : parts) values.push_back(part.*field);
      median_parts.*field = Median(values);
    };
    for (double Parts::*field :
         {&Parts::computing, &Parts::communication, &Parts::idle, &Parts::input}) {
      median_of(field);
    }
    const double limit = std::max(median * (1 + ratio), median + sigmas * robust_sigma);
    std::vector<size_t> outliers;
    double excess = 0, total = 0;
    for (size_t i = 0; i < durations.size(); ++i) {
      total += durations[i];
      if (durations[i] > limit) {
        outliers.push_back(i);
        excess += durations[i] - median;
      }
    }
    const double share = total > 0 ? excess / total : 0;
    const bool triggered = !outliers.empty();
    std::string detail = std::to_string(outliers.size()) + " of " +
                         std::to_string(durations.size()) + " steps slower than " +
                         Ms(static_cast<int64_t>(limit)) + " (median " +
                         Ms(static_cast<int64_t>(median)) + ")";
    if (triggered) detail += "; they cost " + Percent(share) + " of the run's step time";
    outcome.Evaluated(p, share, triggered, detail);
    if (!triggered) continue;
    worst_impact = std::max(worst_impact, share);
    if (outliers.size() > 1 || outliers[0] != 0) only_warmup = false;
    std::sort(outliers.begin(), outliers.end(),
              [&](size_t a, size_t b) { return durations[a] > durations[b]; });
    if (outliers.size() > kOutliersShown) outliers.resize(kOutliersShown);
    EvidenceTable& table =
        AddTable(finding, "Slowest steps", {"step", "time", "vs median", "cause"});
    for (size_t i : outliers) {
      AddRow(input, p, &table,
             {set.steps.Label(rows[i]->step, rows[i]->loop), Ms(static_cast<int64_t>(durations[i])),
              Fixed(durations[i] / median, 2) + "×", Cause(parts[i], median_parts)},
             EvidenceTarget::Step(rows[i]->step_id));
    }
  }
  outcome.Finish(thresholds.Get("slow_steps.high_share"));
  if (!outcome.any_triggered()) return;
  finding->impact = worst_impact;
  if (only_warmup) {
    finding->severity = Severity::kLow;
    finding->suggestion =
        "Only the first step is slow: warm-up (allocator growth, kernel selection, lazy "
        "initialisation). Leave it out of measurements (a profiler schedule with warmup, or "
        "--iteration-id).";
    return;
  }
  finding->suggestion =
      "Look at the slow steps in the timeline (their cause is listed): input wait → data "
      "loading; communication → a slow rank or link; idle → host work such as logging, "
      "checkpointing, garbage collection or synchronisation inside those steps; computing → "
      "varying shapes (pad or bucket them).";
}

}  // namespace

const RuleDefinition& SlowStepsRule() {
  static const RuleDefinition rule{
      "slow_steps",
      "Slow or unstable steps",
      {"step_breakdown", "data_preparation", "steps"},
      {{"slow_steps.median_ratio", 0.2, "share of the median step",
        "how much slower than the median step an outlier is at least",
        "msprof trailing check: step time ratio > 20% (ascend-msprof-formats.md §1.9)"},
       {"slow_steps.robust_sigmas", 3, "robust σ (1.4826 × MAD)",
        "how far beyond the median an outlier is at least",
        "msprof-analyze slow_rank recipe: 3σ outlier test (ascend-msprof-formats.md §3.1)"},
       {"slow_steps.min_steps", 5, "steps", "steps needed to judge outliers", "aiprof's choice"},
       {"slow_steps.high_share", 0.10, "share of step time",
        "time lost to outliers from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
