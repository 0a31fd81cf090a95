#include "analysis/critical_path/what_if.h"

#include <algorithm>
#include <cmath>

namespace aiprof::analysis {

std::string_view WhatIfKindKey(WhatIfKind kind) {
  switch (kind) {
    case WhatIfKind::kDataLoadingFree:
      return "data_loading_free";
    case WhatIfKind::kOperatorFaster:
      return "operator_faster";
    case WhatIfKind::kCategoryFaster:
      return "category_faster";
    case WhatIfKind::kRankAtMedian:
      return "rank_at_median";
    case WhatIfKind::kCommunicationOverlapped:
      break;
  }
  return "communication_overlapped";
}

std::string WhatIfSpec::Describe() const {
  const std::string percent = std::to_string(static_cast<int>(std::lround(speedup * 100))) + "%";
  switch (kind) {
    case WhatIfKind::kDataLoadingFree:
      return "data loading free";
    case WhatIfKind::kOperatorFaster:
      return name + " " + percent + " faster";
    case WhatIfKind::kCategoryFaster:
      return std::string(PathCategoryName(category)) + " " + percent + " faster";
    case WhatIfKind::kRankAtMedian:
      return "slowest rank at the median rank's speed";
    case WhatIfKind::kCommunicationOverlapped:
      break;
  }
  return "communication fully overlapped";
}

bool WeightsFor(const PathGraph& graph, const model::Model& model,
                const std::vector<WhatIfSpec>& specs, const MemberBusy& busy,
                std::vector<uint8_t>* owner_selected, PathWeights* weights) {
  *weights = PathWeights{};
  bool applies = false;
  const auto scale = [&](PathCategory category, double factor) {
    weights->category[static_cast<size_t>(category)] *= factor;
  };
  for (const WhatIfSpec& spec : specs) {
    const double factor = std::clamp(1.0 - spec.speedup, 0.0, 1.0);
    switch (spec.kind) {
      case WhatIfKind::kDataLoadingFree:
        scale(PathCategory::kDataLoading, 0);
        applies = true;
        break;
      case WhatIfKind::kCategoryFaster:
        scale(spec.category, factor);
        applies = true;
        break;
      case WhatIfKind::kCommunicationOverlapped:
        scale(PathCategory::kCommTransit, 0);
        applies = true;
        break;
      case WhatIfKind::kOperatorFaster: {
        const model::StringId name = model.strings.Find(spec.name);
        owner_selected->assign(graph.owners.size(), 0);
        bool any = false;
        for (size_t o = 0; o < graph.owners.size(); ++o) {  // a parent comes before its children
          const PathOwner& owner = graph.owners[o];
          const bool selected =
              (name != model::kNoString && model.slices.name[owner.slice] == name) ||
              (owner.parent != model::kNoRow && (*owner_selected)[owner.parent]);
          (*owner_selected)[o] = selected;
          any |= selected;
        }
        if (!any) break;
        weights->owner_selected = owner_selected;
        weights->owner_factor *= factor;
        applies = true;
        break;
      }
      case WhatIfKind::kRankAtMedian: {
        if (busy.busy_ns.size() < 2) break;
        std::vector<int64_t> sorted = busy.busy_ns;
        std::sort(sorted.begin(), sorted.end());
        const size_t n = sorted.size();
        const double median =
            n % 2 == 1
                ? static_cast<double>(sorted[n / 2])
                : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
        const auto slowest = std::max_element(busy.busy_ns.begin(), busy.busy_ns.end());
        if (static_cast<double>(*slowest) <= median || *slowest <= 0) break;
        const double to_median = median / static_cast<double>(*slowest);
        weights->member = static_cast<uint32_t>(slowest - busy.busy_ns.begin());
        weights->member_category[static_cast<size_t>(PathCategory::kCompute)] = to_median;
        weights->member_category[static_cast<size_t>(PathCategory::kHostOverhead)] = to_median;
        applies = true;
        break;
      }
    }
  }
  return applies;
}

int64_t ProjectedStepNs(const PathGraph& graph, const ForwardPass& pass) {
  int64_t end = graph.begin_ns;
  for (const PathMember& member : graph.members) {
    if (member.end_node != model::kNoRow) end = std::max(end, pass.earliest[member.end_node]);
  }
  return end - graph.begin_ns;
}

}  // namespace aiprof::analysis
