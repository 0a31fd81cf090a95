#include "analysis/cluster/cluster_merge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "analysis/cluster/median.h"

namespace aiprof::analysis::cluster {

namespace {

constexpr double kBandwidthThreshold = 0.8;
// Below this many bytes on a link type a rank's bandwidth is latency, not the link's:
// msprof judges links on large packets only.
constexpr double kMinLinkBytes = 1e6;  // msprof: bandwidth utilisation

// Linear-interpolated quantile q of sorted values.
double Quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t low = static_cast<size_t>(position);
  const size_t high = std::min(low + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(low);
  return static_cast<double>(sorted[low]) * (1 - fraction) +
         static_cast<double>(sorted[high]) * fraction;
}

void FillRankRow(const RankSummary& s, const RankStep& step, ClusterStepRow& row) {
  row.step = step.step;
  row.loop = step.loop;
  row.type = ClusterStepRow::Type::kRank;
  row.index = std::to_string(s.rank);
  row.times = StepTraceTimeValuesOf(step);
}

// Rank rows by step, within a step by rank (summaries are by rank), written straight into
// the result: a 1,024-rank job has half a million rows. Returns the summary of each row.
// Room is reserved for as many stage rows as rank rows, the most any layout can add (a
// stage row has at least one rank): the layout is not known yet, and the unused room is
// address space only (its pages are never written, so never mapped in).
std::vector<uint32_t> BuildRankRows(const std::vector<RankSummary>& summaries,
                                    ClusterResult& result) {
  struct Ref {
    StepKey step;
    uint32_t summary;
    uint32_t index;
  };
  std::vector<Ref> refs;
  size_t total = 0;
  for (const RankSummary& s : summaries) total += s.steps.size();
  refs.reserve(total);
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    for (uint32_t k = 0; k < summaries[i].steps.size(); ++k)
      refs.push_back({KeyOf(summaries[i].steps[k]), i, k});
  }
  std::stable_sort(refs.begin(), refs.end(),
                   [](const Ref& a, const Ref& b) { return a.step < b.step; });
  result.step_rows.reserve(2 * refs.size());
  std::vector<uint32_t> row_summary;
  row_summary.reserve(refs.size());
  for (const Ref& ref : refs) {
    const RankSummary& s = summaries[ref.summary];
    FillRankRow(s, s.steps[ref.index], result.step_rows.emplace_back());
    row_summary.push_back(ref.summary);
  }
  return row_summary;
}

void TakeMax(ClusterStepRow& stage, const ClusterStepRow& row) {
  for (size_t i = 0; i < stage.times.size(); ++i)
    stage.times[i] = std::max(stage.times[i], row.times[i]);
}

// After each step's rank rows, one stage row per pipeline stage with ranks in the step (one
// for all ranks when the layout is unknown) holding the maximum of each column over the
// stage's ranks; the rank rows get their parallel indices. In place, within the room
// BuildRankRows reserved (the rows move back to make room): the half a million rows of a
// large job are neither copied to fresh memory nor reallocated, whatever the layout.
// `row_summary`: the summary of each rank row.
void AddStageRows(const std::vector<RankSummary>& summaries,
                  const std::vector<uint32_t>& row_summary, ClusterResult& result) {
  const ParallelLayout& layout = result.layout;
  const size_t stages = layout.known ? layout.stages.size() : 1;
  std::vector<ParallelPosition> position_of(summaries.size());
  std::vector<size_t> stage_of(summaries.size(), 0);
  if (layout.known) {
    for (size_t i = 0; i < summaries.size(); ++i) {
      position_of[i] = layout.positions.at(summaries[i].rank);
      stage_of[i] = static_cast<size_t>(position_of[i].pp_index);
    }
  }
  std::vector<ClusterStepRow>& rows = result.step_rows;
  struct Segment {
    size_t begin, end;
    std::vector<ClusterStepRow> stage_rows;  // the non-empty stages, by stage
  };
  std::vector<Segment> segments;
  std::vector<ClusterStepRow> stage_max(stages);
  std::vector<std::vector<int32_t>> stage_ranks(stages);
  size_t added = 0;
  for (size_t begin = 0; begin < rows.size();) {
    const StepKey step = KeyOf(rows[begin]);
    for (size_t stage = 0; stage < stages; ++stage) {
      stage_max[stage] = ClusterStepRow{};
      stage_ranks[stage].clear();
    }
    size_t end = begin;
    for (; end < rows.size() && KeyOf(rows[end]) == step; ++end) {
      const uint32_t summary = row_summary[end];
      rows[end].position = position_of[summary];
      TakeMax(stage_max[stage_of[summary]], rows[end]);
      stage_ranks[stage_of[summary]].push_back(summaries[summary].rank);
    }
    Segment& segment = segments.emplace_back(Segment{begin, end, {}});
    for (size_t stage = 0; stage < stages; ++stage) {
      if (stage_ranks[stage].empty()) continue;
      ClusterStepRow& row = segment.stage_rows.emplace_back(std::move(stage_max[stage]));
      row.loop = step.first;
      row.step = step.second;
      row.type = ClusterStepRow::Type::kStage;
      row.index = RankSet(stage_ranks[stage]);
    }
    added += segment.stage_rows.size();
    begin = end;
  }
  size_t write = rows.size() + added;
  rows.resize(write);  // within the capacity: added <= the rank rows
  for (auto segment = segments.rbegin(); segment != segments.rend(); ++segment) {
    for (auto row = segment->stage_rows.rbegin(); row != segment->stage_rows.rend(); ++row)
      rows[--write] = std::move(*row);
    for (size_t k = segment->end; k > segment->begin; --k) {
      if (--write != k - 1) rows[write] = std::move(rows[k - 1]);
    }
  }
}

// The (src, dst) of every transfer whose two ends agree (a send and a recv matched across
// ranks), once each: a peer only one end names may be misread (model/p2p_peer.h).
std::vector<std::pair<int32_t, int32_t>> P2pLinks(const ClusterResult& result) {
  std::set<std::pair<int32_t, int32_t>> links;
  for (const CommOpTiming& op : result.comm_ops) {
    if (op.kind == CommKind::kP2p && op.wait_source == WaitSource::kPeers && op.src_rank >= 0 &&
        op.dst_rank >= 0)
      links.insert({op.src_rank, op.dst_rank});
  }
  return {links.begin(), links.end()};
}

// Where the ranks run: a host id per summary, the hosts in order of their first rank.
struct HostIndex {
  std::vector<std::string> names;    // by host id
  std::vector<uint32_t> of_summary;  // host id per summary
  std::vector<uint32_t> order;       // host ids by first rank (summaries are by rank)
  std::map<int32_t, uint32_t> summary_of_rank;

  explicit HostIndex(const std::vector<RankSummary>& summaries) : of_summary(summaries.size()) {
    std::map<std::string, uint32_t> ids;
    for (uint32_t i = 0; i < summaries.size(); ++i) {
      const auto [it, added] = ids.try_emplace(summaries[i].host, ids.size());
      of_summary[i] = it->second;
      if (added) order.push_back(it->second);
      summary_of_rank[summaries[i].rank] = i;
    }
    names.resize(ids.size());
    for (const auto& [name, id] : ids) names[id] = name;
  }
  // The host id of a rank, -1 for a rank without a summary.
  int64_t OfRank(int32_t rank) const {
    const auto found = summary_of_rank.find(rank);
    return found == summary_of_rank.end() ? -1 : of_summary[found->second];
  }
};

// Every rank's operations in one list (moved out of the summaries), with the summary index
// of each.
void GatherOperations(std::vector<RankSummary>& summaries, std::vector<CommOpTiming>& ops,
                      std::vector<uint32_t>& owner) {
  size_t total = 0;
  for (const RankSummary& s : summaries) total += s.communication.size();
  ops.reserve(total);
  owner.reserve(total);
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    for (CommOpTiming& op : summaries[i].communication) {
      ops.push_back(std::move(op));
      owner.push_back(i);
    }
    summaries[i].communication.clear();
    summaries[i].communication.shrink_to_fit();
  }
}

// An operation's transport when its rank did not record one: within a host when every peer
// runs on the rank's host, across hosts otherwise, unknown when a peer has no summary. A
// group no summary lists is added without ranks (the cluster's groups list it so).
void InferTransport(CommOpTiming& op, const HostIndex& hosts,
                    std::map<std::string, std::vector<int32_t>>& group_ranks) {
  std::vector<int32_t> peers;
  if (op.kind == CommKind::kP2p) {
    peers.push_back(op.src_rank == op.rank ? op.dst_rank : op.src_rank);
  } else {
    peers = group_ranks[op.group];
  }
  const int64_t own = hosts.OfRank(op.rank);
  bool known = own >= 0 && !peers.empty();
  bool same = true;
  for (int32_t peer : peers) {
    if (peer == op.rank) continue;
    const int64_t host = hosts.OfRank(peer);
    known &= host >= 0;
    same &= host == own;
  }
  if (known) op.transport = same ? TransportType::kIntraHost : TransportType::kInterHost;
}

// The clock check: per host, the offset of its ranks' collective ends from the first host's
// (median and half the interquartile range over the matched collectives), and the spread of
// the ends within a host.
void CheckClocks(
    const std::vector<CommOpTiming>& ops, const std::vector<uint32_t>& owner,
    const std::map<std::pair<std::string, uint64_t>, std::vector<uint32_t>>& collectives,
    const HostIndex& hosts, ClusterResult& result) {
  std::vector<std::vector<int64_t>> offsets(hosts.names.size());
  std::vector<int64_t> same_host_spreads;
  std::vector<std::vector<int64_t>> ends(hosts.names.size());
  for (const auto& [key, members] : collectives) {
    for (std::vector<int64_t>& host_ends : ends) host_ends.clear();
    for (uint32_t k : members) ends[hosts.of_summary[owner[k]]].push_back(ops[k].end_ns);
    for (const std::vector<int64_t>& host_ends : ends) {
      if (host_ends.size() < 2) continue;
      const auto [low, high] = std::minmax_element(host_ends.begin(), host_ends.end());
      same_host_spreads.push_back(*high - *low);
    }
    const uint32_t reference = hosts.order[0];
    if (ends[reference].empty()) continue;
    const double reference_end = Median(ends[reference]);
    for (uint32_t h = 0; h < ends.size(); ++h) {
      if (h == reference || ends[h].empty()) continue;
      offsets[h].push_back(static_cast<int64_t>(std::llround(Median(ends[h]) - reference_end)));
    }
  }
  for (uint32_t h : hosts.order) {
    HostClock clock;
    clock.host = hosts.names[h];
    for (uint32_t host : hosts.of_summary) clock.ranks += host == h;
    std::vector<int64_t>& samples = offsets[h];
    std::sort(samples.begin(), samples.end());
    clock.samples = samples.size();
    if (!samples.empty()) {
      clock.offset_ns = static_cast<int64_t>(std::llround(Quantile(samples, 0.5)));
      clock.uncertainty_ns = static_cast<int64_t>(
          std::llround((Quantile(samples, 0.75) - Quantile(samples, 0.25)) / 2));
    }
    result.clock.hosts.push_back(clock);
  }
  result.clock.same_host_end_spread_ns =
      static_cast<int64_t>(std::llround(Median(same_host_spreads)));
}

// The rows' order: an operation's rows together, operations by step and first start.
std::vector<uint32_t> RowOrder(const std::vector<CommOpTiming>& ops) {
  std::map<std::tuple<CommKind, std::string, int32_t, int32_t, uint64_t>, int64_t> first_start;
  for (const CommOpTiming& op : ops) {
    auto [it, added] = first_start.try_emplace(
        {op.kind, op.group, op.src_rank, op.dst_rank, op.sequence}, op.time.start_ns);
    if (!added) it->second = std::min(it->second, op.time.start_ns);
  }
  std::vector<int64_t> start_of(ops.size());
  for (uint32_t k = 0; k < ops.size(); ++k) {
    const CommOpTiming& op = ops[k];
    start_of[k] = first_start.at({op.kind, op.group, op.src_rank, op.dst_rank, op.sequence});
  }
  std::vector<uint32_t> order(ops.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const CommOpTiming &x = ops[a], &y = ops[b];
    if (KeyOf(x) != KeyOf(y)) return KeyOf(x) < KeyOf(y);
    if (start_of[a] != start_of[b]) return start_of[a] < start_of[b];
    if (x.name != y.name) return x.name < y.name;
    if (x.group != y.group) return x.group < y.group;
    return x.rank < y.rank;
  });
  return order;
}

// Derives the wait over all ranks' operations, fills the communication rows, each rank's
// wait per step, the matrix and the clock check.
void BuildCommunication(std::vector<RankSummary>& summaries, const HostIndex& hosts,
                        std::vector<WaitByStep>& waits, ClusterResult& result) {
  std::map<std::string, std::vector<int32_t>> group_ranks;
  for (const RankSummary& s : summaries) {
    for (const CommGroup& group : s.groups) {
      std::vector<int32_t>& ranks = group_ranks[group.name];
      if (ranks.empty()) ranks = group.ranks;
    }
  }
  std::vector<CommOpTiming> ops;
  std::vector<uint32_t> owner;  // summary index of each operation
  GatherOperations(summaries, ops, owner);
  DerivePeerWait(ops);

  // One pass per matched collective (group, sequence) for the clock check.
  std::map<std::pair<std::string, uint64_t>, std::vector<uint32_t>> collectives;
  for (uint32_t k = 0; k < ops.size(); ++k) {
    CommOpTiming& op = ops[k];
    if (op.wait_source != WaitSource::kPeers) ++result.unmatched_ops;
    waits[owner[k]][KeyOf(op)] += op.time.wait_ns;
    if (op.transport == TransportType::kUnknown) InferTransport(op, hosts, group_ranks);
    if (op.kind == CommKind::kCollective && op.wait_source == WaitSource::kPeers)
      collectives[{op.group, op.sequence}].push_back(k);
  }
  CheckClocks(ops, owner, collectives, hosts, result);

  // The matrix and the wait note follow from the operations as in one rank's analysis.
  CommunicationAnalysis merged;
  merged.ops.reserve(ops.size());
  for (uint32_t k : RowOrder(ops)) merged.ops.push_back(std::move(ops[k]));
  RebuildFromOps(merged);
  result.comm_ops = std::move(merged.ops);
  result.matrix = std::move(merged.matrix);
  result.wait_note = std::move(merged.wait_note);
  for (auto& [name, ranks] : group_ranks) result.groups.push_back({name, ranks});
}

void FindSlowLinks(ClusterResult& result) {
  // transport -> rank -> (bytes, transit ns)
  std::map<std::string, std::map<int32_t, std::pair<double, double>>> totals;
  for (const CommOpTiming& op : result.comm_ops) {
    if (op.bytes <= 0 || op.time.transit_ns <= 0) continue;
    auto& [bytes, transit] = totals[std::string(TransportTypeName(op.transport))][op.rank];
    bytes += static_cast<double>(op.bytes);
    transit += static_cast<double>(op.time.transit_ns);
  }
  for (const auto& [transport, ranks] : totals) {
    if (ranks.size() < 2 || transport == TransportTypeName(TransportType::kUnknown)) continue;
    std::vector<double> bandwidths;
    for (const auto& [rank, total] : ranks) {
      if (total.first >= kMinLinkBytes) bandwidths.push_back(total.first / total.second);
    }
    if (bandwidths.size() < 2) continue;
    const double median = Median(bandwidths);
    for (const auto& [rank, total] : ranks) {
      if (total.first < kMinLinkBytes) continue;
      const double bandwidth = total.first / total.second;
      if (bandwidth < kBandwidthThreshold * median)
        result.slow_links.push_back({transport, rank, bandwidth, median});
    }
  }
}

}  // namespace

std::string ClockAlignment::Describe() const {
  if (hosts.size() <= 1) {
    return "one host: every rank's times come from the same CLOCK_REALTIME (no cross-host "
           "offset to correct)";
  }
  std::string text = std::to_string(hosts.size()) + " hosts; offsets to " + hosts[0].host +
                     " estimated from the ends of matched collectives:";
  for (size_t i = 1; i < hosts.size(); ++i) {
    const HostClock& h = hosts[i];
    char line[256];
    if (h.samples == 0) {
      std::snprintf(line, sizeof line, " %s: no shared collective, offset unknown;",
                    h.host.c_str());
    } else {
      std::snprintf(line, sizeof line, " %s: %+.3f ms ± %.3f ms (%llu collectives);",
                    h.host.c_str(), static_cast<double>(h.offset_ns) / 1e6,
                    static_cast<double>(h.uncertainty_ns) / 1e6,
                    static_cast<unsigned long long>(h.samples));
    }
    text += line;
  }
  return text;
}

ClusterResult MergeRankSummaries(std::vector<RankSummary> summaries) {
  std::sort(summaries.begin(), summaries.end(),
            [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
  ClusterResult result;
  for (const RankSummary& summary : summaries) {
    for (const RankStep& step : summary.steps) result.several_loops |= step.loop > 0;
  }
  if (summaries.empty()) return result;
  const HostIndex hosts(summaries);
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    const RankSummary& s = summaries[i];
    result.ranks.push_back({s.rank, s.device_id, s.host, s.sources, s.events, s.dropped_records,
                            s.step_source, hosts.of_summary[i]});
    result.dropped_records += s.dropped_records;
    if (s.world_size > 0) result.world_size = std::max(result.world_size, s.world_size);
  }
  // The step rows and the communication read different parts of the summaries and fill
  // different parts of the result: the two largest steps of the merge run side by side.
  std::vector<WaitByStep> waits(summaries.size());
  std::vector<uint32_t> row_summary;
  std::thread step_rows([&] { row_summary = BuildRankRows(summaries, result); });
  BuildCommunication(summaries, hosts, waits, result);
  result.layout = DeriveParallelLayout(summaries, P2pLinks(result));
  step_rows.join();
  AddStageRows(summaries, row_summary, result);
  SlowRankDiagnosis diagnosis = DiagnoseSlowRanks(summaries, waits, result.layout);
  result.verdicts = std::move(diagnosis.ranks);
  result.stage_verdicts = std::move(diagnosis.stages);
  result.divergent_steps = std::move(diagnosis.divergent_steps);
  FindSlowLinks(result);
  result.critical_steps = ComputeClusterCriticalPath(summaries, result.comm_ops);
  return result;
}

}  // namespace aiprof::analysis::cluster
