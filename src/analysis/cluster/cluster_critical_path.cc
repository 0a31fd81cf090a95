#include "analysis/cluster/cluster_critical_path.h"

#include <algorithm>
#include <climits>
#include <map>

namespace aiprof::analysis::cluster {
namespace {

struct Member {
  int32_t rank = -1;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  const CategoryTimes* own = nullptr;
};

using RankStepKey = std::pair<StepKey, int32_t>;

// Each rank's matched operations of each step, by end.
std::map<RankStepKey, std::vector<uint32_t>> OperationsByRankStep(
    const std::vector<CommOpTiming>& ops, const std::vector<uint32_t>& group_of) {
  std::map<RankStepKey, std::vector<uint32_t>> by_rank;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    if (group_of[i] == model::kNoRow || ops[i].step == kNoStep) continue;
    by_rank[{{ops[i].loop, ops[i].step}, ops[i].rank}].push_back(i);
  }
  for (auto& [key, list] : by_rank) {
    std::sort(list.begin(), list.end(),
              [&](uint32_t a, uint32_t b) { return ops[a].end_ns < ops[b].end_ns; });
  }
  return by_rank;
}

class StepWalker {
 public:
  explicit StepWalker(const std::vector<CommOpTiming>& ops)
      : ops_(ops), groups_(MatchPeerOperations(ops)), group_of_(ops.size(), model::kNoRow) {
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      for (uint32_t i : groups_[g]) group_of_[i] = g;
    }
    by_rank_ = OperationsByRankStep(ops_, group_of_);
    for (const CommOpTiming& op : ops_) {
      if (op.step != kNoStep) wait_[{{op.loop, op.step}, op.rank}] += op.time.wait_ns;
    }
  }

  // Walks the job's path of step `key` back from `rank`'s end, at `t`, to `begin`: the time
  // on each rank, and the operations each rank arrived last at.
  void Walk(const StepKey& key, int32_t rank, int64_t t, int64_t begin,
            std::map<int32_t, int64_t>* on_path, std::map<int32_t, uint32_t>* gated) const {
    while (t > begin) {
      const uint32_t op = LatestBefore(key, rank, t);
      if (op == model::kNoRow) break;
      // The last arrival of the operation gates it; before it, the path is on that rank.
      uint32_t last = op;
      for (uint32_t peer : groups_[group_of_[op]]) {
        const int64_t start = ops_[peer].time.start_ns;
        if (start > ops_[last].time.start_ns ||
            (start == ops_[last].time.start_ns && ops_[peer].rank < ops_[last].rank)) {
          last = peer;
        }
      }
      // Clocks of two hosts that contradict the order: the path stays on this rank.
      if (ops_[last].time.start_ns >= t) last = op;
      const int64_t arrival = ops_[last].time.start_ns;
      (*on_path)[rank] += t - arrival;  // its work after the operation, then the transit
      ++(*gated)[ops_[last].rank];
      rank = ops_[last].rank;
      t = arrival;
    }
    if (t > begin) (*on_path)[rank] += t - begin;
  }

  // The communication wait of the step's other ranks (DerivePeerWait's).
  int64_t WaitOfOthers(const StepKey& key, int32_t critical) const {
    int64_t wait = 0;
    for (auto it = wait_.lower_bound({key, INT32_MIN}); it != wait_.end() && it->first.first == key;
         ++it) {
      if (it->first.second != critical) wait += it->second;
    }
    return wait;
  }

 private:
  // The rank's latest matched operation of the step that started before `t` and ended by it.
  uint32_t LatestBefore(const StepKey& key, int32_t rank, int64_t t) const {
    const auto found = by_rank_.find({key, rank});
    if (found == by_rank_.end()) return model::kNoRow;
    const std::vector<uint32_t>& list = found->second;
    auto it = std::upper_bound(list.begin(), list.end(), t,
                               [&](int64_t at, uint32_t i) { return at < ops_[i].end_ns; });
    while (it != list.begin()) {
      --it;
      if (ops_[*it].time.start_ns < t) return *it;
    }
    return model::kNoRow;
  }

  const std::vector<CommOpTiming>& ops_;
  std::vector<std::vector<uint32_t>> groups_;
  std::vector<uint32_t> group_of_;
  std::map<RankStepKey, std::vector<uint32_t>> by_rank_;
  std::map<RankStepKey, int64_t> wait_;
};

}  // namespace

std::vector<ClusterCriticalStep> ComputeClusterCriticalPath(
    const std::vector<RankSummary>& summaries, const std::vector<CommOpTiming>& ops) {
  std::map<StepKey, std::vector<Member>> steps;
  for (const RankSummary& summary : summaries) {
    for (const RankStep& step : summary.steps) {
      if (!step.has_path || step.step == kNoStep) continue;
      steps[KeyOf(step)].push_back(
          {summary.rank, step.path_begin_ns, step.path_end_ns, &step.path});
    }
  }
  std::vector<ClusterCriticalStep> out;
  if (steps.empty()) return out;
  const StepWalker walker(ops);
  for (auto& [key, members] : steps) {
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.rank < b.rank; });
    ClusterCriticalStep step;
    step.loop = key.first;
    step.step = key.second;
    step.ranks = static_cast<uint32_t>(members.size());
    step.begin_ns = members.front().begin_ns;
    const Member* last = &members.front();
    for (const Member& m : members) {
      step.begin_ns = std::min(step.begin_ns, m.begin_ns);
      if (m.end_ns > last->end_ns) last = &m;
    }
    step.end_ns = last->end_ns;
    step.last_rank = last->rank;
    std::map<int32_t, int64_t> on_path;
    std::map<int32_t, uint32_t> gated;
    walker.Walk(key, last->rank, last->end_ns, step.begin_ns, &on_path, &gated);
    for (const auto& [rank, ns] : on_path) {  // by rank: a tie goes to the lower rank
      if (ns > step.on_path_ns) {
        step.on_path_ns = ns;
        step.critical_rank = rank;
      }
    }
    step.gated_operations = gated[step.critical_rank];
    for (const Member& m : members) {
      if (m.rank == step.critical_rank) step.critical_own = *m.own;
    }
    step.gate = step.critical_own.Largest();
    step.peers_wait_ns = walker.WaitOfOthers(key, step.critical_rank);
    out.push_back(step);
  }
  return out;
}

}  // namespace aiprof::analysis::cluster
