#include "analysis/advice/engine.h"

#include <algorithm>

#include "analysis/advice/projected_saving.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      break;
  }
  return "low";
}

std::string_view RuleStatusName(RuleStatus status) {
  switch (status) {
    case RuleStatus::kTriggered:
      return "triggered";
    case RuleStatus::kPassed:
      return "passed";
    case RuleStatus::kNotEvaluated:
      break;
  }
  return "not evaluated";
}

size_t AdviceReport::triggered() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(), [](const Finding& f) {
    return f.status == RuleStatus::kTriggered;
  }));
}

const std::vector<const RuleDefinition*>& AllRules() {
  static const std::vector<const RuleDefinition*> rules = {
      &DataLoadingRule(),          &HostBoundRule(), &SlowStepsRule(),        &LowUtilisationRule(),
      &CommunicationOverlapRule(), &SlowRankRule(),  &SlowLinkRule(),         &MemoryRule(),
      &DominantOperatorsRule(),    &HostSyncRule(),  &KernelEfficiencyRule(), &Fp32MatmulRule()};
  return rules;
}

ProfileInput MakeProfileInput(const model::Model& model, const AnalysisSet& analyses,
                              const std::string& name) {
  ProfileInput profile;
  profile.label = name;
  profile.analyses = &analyses;
  if (analyses.inputs.ranks.size() == 1) {
    profile.rank = analyses.inputs.ranks[0];
    profile.label = "rank " + std::to_string(profile.rank);
  }
  profile.facts = CollectProfileFacts(model, analyses.communication.ops);
  return profile;
}

AdviceReport RunAdvice(const AdviceInput& input, const Thresholds& thresholds) {
  AdviceReport report;
  for (const ProfileInput& profile : input.profiles) {
    report.profiles.push_back(profile.label);
    report.inputs.push_back(profile.analyses->inputs.Describe());
    report.dropped_records += profile.analyses->inputs.dropped_records;
    StepTimes times{profile.label, {}};
    for (const StepBreakdownRow* row : MainScopeRows(*profile.analyses)) {
      times.steps.emplace_back(row->step, static_cast<double>(StepDurationNs(*row)) / 1e6);
    }
    report.step_times.push_back(std::move(times));
  }
  for (const RuleDefinition* rule : AllRules()) {
    Finding finding;
    finding.rule = rule->name;
    finding.title = rule->title;
    finding.reads = rule->reads;
    for (const ThresholdSpec& spec : rule->thresholds) {
      finding.thresholds.push_back(thresholds.specs().at(spec.key));
    }
    if (input.profiles.empty()) {
      finding.detail = "not evaluated: no profile given";
    } else {
      rule->evaluate(input, thresholds, &finding);
    }
    report.findings.push_back(std::move(finding));
  }
  for (Finding& finding : report.findings) AddProjectedSaving(input, &finding);
  // Triggered findings by what fixing them would save (the critical path's projections),
  // then those no projection models by severity and impact.
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (a.status != b.status) return a.status < b.status;
                     if (a.status != RuleStatus::kTriggered) return false;
                     const bool projected_a = a.projected_saving >= 0;
                     const bool projected_b = b.projected_saving >= 0;
                     if (projected_a != projected_b) return projected_a;
                     if (projected_a && a.projected_saving != b.projected_saving) {
                       return a.projected_saving > b.projected_saving;
                     }
                     if (a.severity != b.severity) return a.severity < b.severity;
                     return a.impact > b.impact;
                   });
  return report;
}

}  // namespace aiprof::analysis::advice
