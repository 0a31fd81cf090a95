// Data loading bound: the steps wait for their input. TensorBoard's PyTorch profiler plugin
// recommends more DataLoader workers once the DataLoader takes more than 5% of the step
// (profiler/data.py analyze(); reference: trace-analysis-and-ui.md §2.3, rule 1).
#include <algorithm>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kStepsShown = 5;

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("data_loading.step_share");
  PerProfile outcome(input, finding);
  uint32_t empty_queue_steps = 0;
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const DataPreparationResult& data = input.profiles[p].analyses->data_preparation;
    if (data.inputs.empty()) {
      outcome.NotEvaluated(p, "no input ranges (DataLoader operators or data_wait ranges)");
      continue;
    }
    if (data.steps.empty() || data.total_step_ns <= 0) {
      outcome.NotEvaluated(p, "no steps to compare the input wait with");
      continue;
    }
    const double share = data.wait_share();
    const int64_t steps = static_cast<int64_t>(data.steps.size());
    outcome.Evaluated(p, share, share > limit,
                      "steps wait " + Percent(share) + " of their time for input (" +
                          Ms(data.total_wait_ns / steps) + " of " + Ms(data.total_step_ns / steps) +
                          " per step; threshold " + Percent(limit) + ")");
    if (share <= limit) continue;
    empty_queue_steps += data.empty_queue_steps;
    std::vector<const DataPreparationStep*> longest;
    for (const DataPreparationStep& step : data.steps) longest.push_back(&step);
    std::sort(longest.begin(), longest.end(),
              [](const DataPreparationStep* a, const DataPreparationStep* b) {
                return a->wait_ns > b->wait_ns;
              });
    longest.resize(std::min(longest.size(), kStepsShown));
    EvidenceTable& table = AddTable(finding, "Steps waiting longest for input",
                                    {"step", "step time", "input wait", "share", "queue empty"});
    for (const DataPreparationStep* step : longest) {
      AddRow(input, p, &table,
             {input.profiles[p].analyses->steps.Label(step->step, step->loop),
              Ms(step->duration_ns()), Ms(step->wait_ns), Percent(step->wait_share()),
              data.has_queue_view ? (step->queue_empty ? "yes" : "no") : "n/a"},
             EvidenceTarget::Step(step->step_id));
    }
  }
  outcome.Finish(thresholds.Get("data_loading.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Load input in parallel with training: raise DataLoader num_workers (towards the free "
        "CPU cores), set pin_memory=True and persistent_workers=True, raise prefetch_factor; "
        "move decoding and augmentation out of the step or cache preprocessed samples.";
    if (empty_queue_steps > 0) {
      finding->suggestion += " The input queue was empty in " + std::to_string(empty_queue_steps) +
                             " step(s): the loaders cannot keep up, so more of them (or faster "
                             "ones) are needed, not a deeper queue.";
    }
  }
}

}  // namespace

const RuleDefinition& DataLoadingRule() {
  static const RuleDefinition rule{
      "data_loading",
      "Data loading bound",
      {"data_preparation", "steps"},
      {{"data_loading.step_share", 0.05, "share of step time",
        "input wait above which the run is data-loading bound",
        "TensorBoard PyTorch profiler plugin: avg DataLoader / avg step > 0.05 "
        "(trace-analysis-and-ui.md §2.3, 1)"},
       {"data_loading.high_share", 0.25, "share of step time",
        "input wait from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
