#include "analysis/cluster/parallel_layout.h"

#include <algorithm>
#include <set>

#include "model/ascii_case.h"

namespace aiprof::analysis::cluster {

namespace {

enum Kind { kData, kPipeline, kTensor, kKinds };

// The kind a group description names, or kKinds for none.
Kind KindOf(const std::string& description) {
  const std::string text = model::AsciiLowered(description);
  static const std::map<std::string, Kind> kNames = {{"dp", kData},
                                                     {"data_parallel", kData},
                                                     {"data_parallel_group", kData},
                                                     {"pp", kPipeline},
                                                     {"pipeline_parallel", kPipeline},
                                                     {"pipeline_model_parallel_group", kPipeline},
                                                     {"tp", kTensor},
                                                     {"tensor_parallel", kTensor},
                                                     {"tensor_model_parallel_group", kTensor}};
  const auto found = kNames.find(text);
  return found == kNames.end() ? kKinds : found->second;
}

int32_t PositionOf(const std::vector<int32_t>& ranks, int32_t rank) {
  const auto found = std::find(ranks.begin(), ranks.end(), rank);
  return found == ranks.end() ? -1 : static_cast<int32_t>(found - ranks.begin());
}

// Per rank, its named group of each kind (empty: none named); false when a rank names two
// different groups of one kind (the record is not a layout).
bool NamedGroups(const std::vector<RankSummary>& summaries,
                 std::map<int32_t, std::vector<int32_t>> (&named)[kKinds], bool (&any)[kKinds]) {
  for (const RankSummary& s : summaries) {
    for (const model::ProcessGroupInfo& group : s.process_groups) {
      const Kind kind = KindOf(group.description);
      if (kind == kKinds || PositionOf(group.ranks, s.rank) < 0) continue;
      std::vector<int32_t>& mine = named[kind][s.rank];
      if (!mine.empty() && mine != group.ranks) return false;
      mine = group.ranks;
      any[kind] = true;
    }
  }
  return true;
}

// The connected components of the p2p links, by rank; empty unless they cover every rank
// with at least two components of one size of at least 2. One component of every rank
// tells a pipeline no better than any other traffic among all ranks (a data-parallel job
// of two ranks that sends once, a ring exchange), so it is not taken.
std::map<int32_t, std::vector<int32_t>> PipelinesFromPeers(
    const std::vector<RankSummary>& summaries,
    const std::vector<std::pair<int32_t, int32_t>>& links) {
  std::map<int32_t, int32_t> parent;
  for (const RankSummary& s : summaries) parent[s.rank] = s.rank;
  const auto root = [&](int32_t rank) {
    while (parent[rank] != rank) rank = parent[rank] = parent[parent[rank]];
    return rank;
  };
  for (const auto& [src, dst] : links) {
    if (src == dst || !parent.count(src) || !parent.count(dst)) continue;
    const int32_t a = root(src), b = root(dst);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::map<int32_t, std::vector<int32_t>> members;  // root -> ranks, ascending
  for (const auto& [rank, unused] : parent) members[root(rank)].push_back(rank);
  std::map<int32_t, std::vector<int32_t>> pipelines;
  const size_t size = members.empty() ? 0 : members.begin()->second.size();
  if (members.size() < 2) return {};
  for (const auto& [first, ranks] : members) {
    if (ranks.size() != size || size < 2) return {};
  }
  for (const auto& [first, ranks] : members) {
    for (int32_t rank : ranks) pipelines[rank] = ranks;
  }
  return pipelines;
}

}  // namespace

std::string RankSet(const std::vector<int32_t>& ranks) {
  std::string text = "(";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + ")";
}

std::string ParallelLayout::Describe() const {
  if (!known) return "";
  std::string text = std::to_string(stages.size()) + " pipeline stage(s) (from " + source + "):";
  for (size_t s = 0; s < stages.size(); ++s) {
    text += " stage " + std::to_string(s) + " = " + RankSet(stages[s]);
    if (s + 1 < stages.size()) text += ";";
  }
  return text;
}

ParallelLayout DeriveParallelLayout(const std::vector<RankSummary>& summaries,
                                    const std::vector<std::pair<int32_t, int32_t>>& p2p_links) {
  ParallelLayout layout;
  std::map<int32_t, std::vector<int32_t>> named[kKinds];
  bool any[kKinds] = {false, false, false};
  if (summaries.empty() || !NamedGroups(summaries, named, any)) return layout;
  const bool names_kinds = any[kData] || any[kPipeline] || any[kTensor];

  std::map<int32_t, std::vector<int32_t>> pipelines;
  if (any[kPipeline]) {
    pipelines = named[kPipeline];
    layout.source = "group names";
  } else {
    pipelines = PipelinesFromPeers(summaries, p2p_links);
    layout.source = "p2p peers";
    if (pipelines.empty() && names_kinds) {
      for (const RankSummary& s : summaries) pipelines[s.rank] = {s.rank};
      layout.source = "group names";
    }
  }
  for (const RankSummary& s : summaries) {
    if (!pipelines.count(s.rank)) return ParallelLayout{};
  }

  std::map<int32_t, std::set<int32_t>> stage_ranks;  // PP index -> ranks
  for (const RankSummary& s : summaries) {
    const int32_t stage = PositionOf(pipelines[s.rank], s.rank);
    layout.positions[s.rank].pp_index = stage;
    stage_ranks[stage].insert(s.rank);
  }
  const auto stage_of = [&](int32_t rank) { return layout.positions[rank].pp_index; };

  // Tensor parallelism: named, else 1 when nothing recorded lies strictly inside a stage.
  bool tensor_known = true;
  if (!any[kTensor] && !names_kinds) {
    for (const RankSummary& s : summaries) {
      const std::set<int32_t>& stage = stage_ranks[stage_of(s.rank)];
      for (const model::ProcessGroupInfo& group : s.process_groups) {
        const bool inside = std::all_of(group.ranks.begin(), group.ranks.end(),
                                        [&](int32_t r) { return stage.count(r) > 0; });
        if (group.ranks.size() >= 2 && group.ranks.size() < stage.size() && inside)
          tensor_known = false;
      }
    }
  }
  for (const RankSummary& s : summaries) {
    ParallelPosition& p = layout.positions[s.rank];
    if (any[kTensor]) {
      const auto found = named[kTensor].find(s.rank);
      p.tp_index = found == named[kTensor].end() ? -1 : PositionOf(found->second, s.rank);
    } else if (tensor_known) {
      p.tp_index = 0;
    }
  }
  for (const RankSummary& s : summaries) {
    ParallelPosition& p = layout.positions[s.rank];
    const auto found = named[kData].find(s.rank);
    if (found != named[kData].end()) {
      p.dp_index = PositionOf(found->second, s.rank);
    } else if (!any[kData] && p.tp_index >= 0) {
      // The replicas of this rank's place: its stage's ranks of the same TP index.
      int32_t position = 0;
      for (int32_t other : stage_ranks[p.pp_index]) {
        if (other == s.rank) break;
        position += layout.positions[other].tp_index == p.tp_index;
      }
      p.dp_index = position;
    }
  }
  layout.known = true;
  for (const auto& [stage, ranks] : stage_ranks)
    layout.stages.emplace_back(ranks.begin(), ranks.end());
  return layout;
}

}  // namespace aiprof::analysis::cluster
