#include "analysis/advice/projected_saving.h"

#include <optional>

namespace aiprof::analysis::advice {
namespace {

std::optional<WhatIfKind> ProjectionOf(const std::string& rule) {
  if (rule == "data_loading") return WhatIfKind::kDataLoadingFree;
  if (rule == "slow_rank") return WhatIfKind::kRankAtMedian;
  if (rule == "communication_overlap") return WhatIfKind::kCommunicationOverlapped;
  if (rule == "dominant_operators") return WhatIfKind::kOperatorFaster;
  return std::nullopt;
}

}  // namespace

void AddProjectedSaving(const AdviceInput& input, Finding* finding) {
  if (finding->status != RuleStatus::kTriggered) return;
  const std::optional<WhatIfKind> kind = ProjectionOf(finding->rule);
  if (!kind) return;
  auto consider = [&](const WhatIfSummary& summary) {
    if (summary.spec.kind != *kind || !summary.applicable) return;
    if (summary.saving_share() > finding->projected_saving) {
      finding->projected_saving = summary.saving_share();
      finding->projection = summary.spec.Describe();
    }
  };
  if (input.job_what_ifs != nullptr) {
    for (const WhatIfSummary& summary : *input.job_what_ifs) consider(summary);
    return;
  }
  for (const ProfileInput& profile : input.profiles) {
    for (const WhatIfSummary& summary : profile.analyses->critical_path.what_ifs) {
      consider(summary);
    }
  }
}

}  // namespace aiprof::analysis::advice
