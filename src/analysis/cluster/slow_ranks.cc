#include "analysis/cluster/slow_ranks.h"

#include <algorithm>
#include <iterator>

#include "analysis/cluster/median.h"

namespace aiprof::analysis::cluster {

namespace {

constexpr double kSpreadThreshold = 0.05;  // msprof-analyze advisor: slow rank / step

// What a rank (or a stage) spent in one step.
struct StepValues {
  int64_t own_ns = 0;
  int64_t computing_ns = 0;
  int64_t preparing_ns = 0;
  int64_t free_ns = 0;
  int64_t wait_ns = 0;
  // Communication(Not Overlapped and Exclude Receive) − wait: the communication part of
  // the own time (the receive bubble is not in Stage, so not in the own time either).
  int64_t transit_ns = 0;
};

StepValues ValuesOf(const RankStep& step, int64_t wait_ns) {
  StepValues v;
  v.own_ns = step.stage_ns() + step.preparing_ns - wait_ns;
  v.computing_ns = step.computing_ns;
  v.preparing_ns = std::max(step.preparing_ns, step.input_wait_ns);
  v.free_ns = step.free_ns;
  v.wait_ns = wait_ns;
  v.transit_ns =
      std::max<int64_t>(step.communication_not_overlapped_exclude_receive_ns() - wait_ns, 0);
  return v;
}

void Average(const std::vector<StepValues>& steps, StepVerdict& v) {
  v.steps = steps.size();
  for (const StepValues& s : steps) {
    v.own_ns += static_cast<double>(s.own_ns);
    v.computing_ns += static_cast<double>(s.computing_ns);
    v.preparing_ns += static_cast<double>(s.preparing_ns);
    v.free_ns += static_cast<double>(s.free_ns);
    v.communication_wait_ns += static_cast<double>(s.wait_ns);
    v.transit_ns += static_cast<double>(s.transit_ns);
  }
  const double n = v.steps > 0 ? static_cast<double>(v.steps) : 1.0;
  for (double* mean : {&v.own_ns, &v.computing_ns, &v.preparing_ns, &v.free_ns,
                       &v.communication_wait_ns, &v.transit_ns})
    *mean /= n;
}

// Marks the members whose own time exceeds the members' median by more than 5%, with the
// component of the largest excess over its median as the reason.
template <typename Verdict>
void Judge(const std::vector<Verdict*>& members) {
  if (members.size() < 2) return;
  auto median_of = [&](double StepVerdict::*field) {
    std::vector<double> values;
    for (const Verdict* v : members) values.push_back(v->*field);
    return Median(values);
  };
  const double own = median_of(&StepVerdict::own_ns);
  const double computing = median_of(&StepVerdict::computing_ns);
  const double preparing = median_of(&StepVerdict::preparing_ns);
  const double free = median_of(&StepVerdict::free_ns);
  const double transit = median_of(&StepVerdict::transit_ns);
  for (Verdict* v : members) {
    v->excess_ns = v->own_ns - own;
    if (own <= 0 || v->excess_ns <= kSpreadThreshold * own) continue;
    v->slow = true;
    const std::pair<const char*, double> causes[] = {
        {"compute", v->computing_ns - computing},
        {"data preparation", v->preparing_ns - preparing},
        {"host overhead", v->free_ns - free},
        {"communication transit", v->transit_ns - transit}};
    const auto* top =
        std::max_element(std::begin(causes), std::end(causes),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    v->reason = top->first;
    v->reason_ns = top->second;
  }
}

int32_t StageOf(const ParallelLayout& layout, int32_t rank) {
  if (!layout.known) return -1;
  const auto found = layout.positions.find(rank);
  return found == layout.positions.end() ? -1 : found->second.pp_index;
}

struct RankStepOwn {
  int32_t rank;
  int64_t own_ns;
};

void FindDivergentSteps(const std::map<std::pair<int32_t, StepKey>, std::vector<RankStepOwn>>& owns,
                        SlowRankDiagnosis& result) {
  for (const auto& [stage_step, members] : owns) {
    if (members.size() < 2) continue;
    DivergentStep d;
    d.stage = stage_step.first;
    d.loop = stage_step.second.first;
    d.step = stage_step.second.second;
    double sum = 0;
    d.min_own_ns = INT64_MAX;
    d.max_own_ns = INT64_MIN;
    for (const RankStepOwn& member : members) {
      sum += static_cast<double>(member.own_ns);
      if (member.own_ns > d.max_own_ns) {
        d.max_own_ns = member.own_ns;
        d.slowest_rank = member.rank;
      }
      if (member.own_ns < d.min_own_ns) {
        d.min_own_ns = member.own_ns;
        d.fastest_rank = member.rank;
      }
    }
    const double mean = sum / static_cast<double>(members.size());
    if (mean <= 0) continue;
    d.spread = static_cast<double>(d.max_own_ns - d.min_own_ns) / mean;
    if (d.spread > kSpreadThreshold) result.divergent_steps.push_back(d);
  }
  std::stable_sort(
      result.divergent_steps.begin(), result.divergent_steps.end(),
      [](const DivergentStep& a, const DivergentStep& b) { return a.spread > b.spread; });
}

}  // namespace

SlowRankDiagnosis DiagnoseSlowRanks(const std::vector<RankSummary>& summaries,
                                    const std::vector<WaitByStep>& waits,
                                    const ParallelLayout& layout) {
  SlowRankDiagnosis result;
  // (stage, step) -> each rank's own time: the divergent steps, within a stage.
  std::map<std::pair<int32_t, StepKey>, std::vector<RankStepOwn>> owns;
  // stage -> step -> the maximum over the stage's ranks of each value.
  std::map<int32_t, std::map<StepKey, StepValues>> stage_steps;
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    const RankSummary& s = summaries[i];
    RankVerdict& v = result.ranks.emplace_back();
    v.rank = s.rank;
    v.host = s.host;
    v.stage = StageOf(layout, s.rank);
    std::vector<StepValues> steps;
    for (const RankStep& step : s.steps) {
      const auto found = waits[i].find(KeyOf(step));
      const StepValues values = ValuesOf(step, found == waits[i].end() ? 0 : found->second);
      steps.push_back(values);
      owns[{v.stage, KeyOf(step)}].push_back({s.rank, values.own_ns});
      if (v.stage < 0) continue;
      auto [it, first] = stage_steps[v.stage].try_emplace(KeyOf(step), values);
      if (first) continue;
      StepValues& most = it->second;
      for (auto field : {&StepValues::own_ns, &StepValues::computing_ns, &StepValues::preparing_ns,
                         &StepValues::free_ns, &StepValues::wait_ns, &StepValues::transit_ns})
        most.*field = std::max(most.*field, values.*field);
    }
    Average(steps, v);
  }
  std::map<int32_t, std::vector<RankVerdict*>> by_stage;
  for (RankVerdict& v : result.ranks) by_stage[v.stage].push_back(&v);
  for (auto& [stage, members] : by_stage) Judge(members);

  if (layout.known) {
    for (int32_t stage = 0; stage < static_cast<int32_t>(layout.stages.size()); ++stage) {
      StageVerdict& v = result.stages.emplace_back();
      v.stage = stage;
      v.ranks = layout.stages[static_cast<size_t>(stage)];
      std::vector<StepValues> steps;
      for (const auto& [step, values] : stage_steps[stage]) steps.push_back(values);
      Average(steps, v);
    }
    std::vector<StageVerdict*> stages;
    for (StageVerdict& v : result.stages) stages.push_back(&v);
    Judge(stages);
  }
  FindDivergentSteps(owns, result);
  return result;
}

}  // namespace aiprof::analysis::cluster
