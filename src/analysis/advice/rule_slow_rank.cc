// Slow rank: with several ranks (several PROF_* directories, or ranks in one), the spread
// of their mean step parts. msprof-analyze's advisor flags (max − min) / mean > 0.05 on
// Computing, Communication(Not Overlapped) and Free of step_trace_time
// (ascend-msprof-formats.md §3.2). The slow rank is the one that computes (or idles) most;
// when only communication differs, the rank that waits least (it arrives last, §1.9).
#include <algorithm>
#include <map>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

struct RankTotals {
  std::string label;
  int32_t rank = -1;
  uint64_t steps = 0;
  double step = 0, computing = 0, communication = 0, free = 0;  // sums, then means per step
};

struct Dimension {
  const char* name;
  double RankTotals::*field;
  bool slow_is_max;  // false: the slow rank has the least of it (communication wait)
};

constexpr Dimension kDimensions[] = {
    {"computing", &RankTotals::computing, true},
    {"communication not overlapped", &RankTotals::communication, false},
    {"free", &RankTotals::free, true},
    {"step time", &RankTotals::step, true},
};

std::vector<RankTotals> CollectRanks(const AdviceInput& input) {
  std::map<std::string, RankTotals> ranks;
  std::vector<std::string> order;
  for (const ProfileInput& profile : input.profiles) {
    for (const StepBreakdownRow& row : profile.analyses->step_breakdown.rows) {
      if (!row.has_tasks) continue;
      const std::string label = row.rank >= 0 ? "rank " + std::to_string(row.rank) : profile.label;
      auto [it, inserted] = ranks.try_emplace(label);
      if (inserted) order.push_back(label);
      RankTotals& totals = it->second;
      totals.label = label;
      totals.rank = row.rank;
      ++totals.steps;
      totals.step += static_cast<double>(row.end_ns - row.begin_ns);
      totals.computing += static_cast<double>(row.computing_ns);
      totals.communication += static_cast<double>(row.communication_not_overlapped_ns);
      totals.free += static_cast<double>(row.free_ns);
    }
  }
  std::vector<RankTotals> result;
  for (const std::string& label : order) {
    RankTotals totals = ranks[label];
    const double n = static_cast<double>(totals.steps);
    totals.step /= n;
    totals.computing /= n;
    totals.communication /= n;
    totals.free /= n;
    result.push_back(totals);
  }
  return result;
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("slow_rank.spread");
  std::vector<RankTotals> ranks = CollectRanks(input);
  if (ranks.size() < 2) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail = "not evaluated: " + std::to_string(ranks.size()) +
                      " rank with steps (give several ranks' PROF_* directories)";
    return;
  }
  finding->status = RuleStatus::kPassed;
  EvidenceTable spread_table{"Spread across ranks (mean per step)",
                             {"part", "min", "max", "mean", "(max−min)/mean"},
                             {},
                             {}};
  std::string slow_rank, why;
  double worst = 0;
  for (const Dimension& dimension : kDimensions) {
    double min = ranks[0].*dimension.field, max = min, sum = 0;
    const RankTotals *lowest = &ranks[0], *highest = &ranks[0];
    for (const RankTotals& rank : ranks) {
      const double value = rank.*dimension.field;
      sum += value;
      if (value < min) {
        min = value;
        lowest = &rank;
      }
      if (value > max) {
        max = value;
        highest = &rank;
      }
    }
    const double mean = sum / static_cast<double>(ranks.size());
    const double spread = mean > 0 ? (max - min) / mean : 0;
    spread_table.rows.push_back({dimension.name, Ms(static_cast<int64_t>(min)),
                                 Ms(static_cast<int64_t>(max)), Ms(static_cast<int64_t>(mean)),
                                 Percent(spread)});
    worst = std::max(worst, spread);
    if (spread > limit && slow_rank.empty()) {
      const RankTotals* slow = dimension.slow_is_max ? highest : lowest;
      slow_rank = slow->label;
      why = std::string(dimension.name) + " " + Ms(static_cast<int64_t>(slow->*dimension.field)) +
            " per step against a mean of " + Ms(static_cast<int64_t>(mean)) + " (spread " +
            Percent(spread) + ", threshold " + Percent(limit) + ")";
    }
  }
  EvidenceTable rank_table{
      "Mean per step by rank",
      {"rank", "steps", "step time", "computing", "communication not overlapped", "free"},
      {},
      {}};
  for (const RankTotals& rank : ranks) {
    rank_table.rows.push_back(
        {rank.label, std::to_string(rank.steps), Ms(static_cast<int64_t>(rank.step)),
         Ms(static_cast<int64_t>(rank.computing)), Ms(static_cast<int64_t>(rank.communication)),
         Ms(static_cast<int64_t>(rank.free))});
    rank_table.targets.push_back(rank.rank >= 0 ? EvidenceTarget::Rank(rank.rank)
                                                : EvidenceTarget{});
  }
  if (slow_rank.empty()) {
    finding->detail = "the " + std::to_string(ranks.size()) + " ranks agree within " +
                      Percent(worst) + " (threshold " + Percent(limit) + ")";
    return;
  }
  finding->status = RuleStatus::kTriggered;
  finding->severity =
      worst >= thresholds.Get("slow_rank.high_spread") ? Severity::kHigh : Severity::kMedium;
  finding->impact = std::min(worst, 1.0);
  finding->detail = slow_rank + " is the slow rank: " + why;
  finding->evidence.push_back(std::move(rank_table));
  finding->evidence.push_back(std::move(spread_table));
  finding->suggestion =
      "Balance the work of " + slow_rank +
      ": check its input (data sharding, sample sizes), its host (other processes, CPU "
      "binding, thermal or frequency limits) and its device; the other ranks wait for it in "
      "every collective.";
}

}  // namespace

const RuleDefinition& SlowRankRule() {
  static const RuleDefinition rule{
      "slow_rank",
      "Slow rank",
      {"step_breakdown (per rank)"},
      {{"slow_rank.spread", 0.05, "(max − min) / mean",
        "spread of a mean step part across ranks above which one rank is slow",
        "msprof-analyze advisor slow rank: (max − min) / mean > 0.05 "
        "(ascend-msprof-formats.md §3.2)"},
       {"slow_rank.high_spread", 0.20, "(max − min) / mean",
        "spread from which the advice is high severity",
        "msprof trailing check: step time ratio > 20% (ascend-msprof-formats.md §1.9)"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
