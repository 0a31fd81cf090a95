#include "analysis/cluster/cluster_merge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace aiprof::analysis::cluster {

namespace {

constexpr double kSpreadThreshold = 0.05;    // msprof-analyze advisor: slow rank / step
constexpr double kBandwidthThreshold = 0.8;  // msprof: bandwidth utilisation

template <typename T>
double Median(std::vector<T> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? static_cast<double>(values[n / 2])
               : (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2;
}

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

std::string RankSet(const std::vector<int32_t>& ranks) {
  std::string text = "(";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(ranks[i]);
  }
  return text + ")";
}

bool IsPointToPoint(const std::string& type) {
  return type == "send" || type == "recv" || type == "sendrecv";
}

struct Member {
  uint32_t summary = 0;  // index into the sorted summaries
  uint32_t op = 0;       // index into its communication
};

// Per rank and step, what the matched collectives made it wait.
using WaitByStep = std::map<int64_t, int64_t>;

void BuildStepRows(const std::vector<RankSummary>& summaries, ClusterResult& result) {
  std::map<int64_t, std::vector<ClusterStepRow>> by_step;
  for (const RankSummary& s : summaries) {
    for (const RankStep& step : s.steps) {
      ClusterStepRow row;
      row.step = step.step;
      row.type = ClusterStepRow::Type::kRank;
      row.index = std::to_string(s.rank);
      row.computing_ns = step.computing_ns;
      row.communication_not_overlapped_ns = step.communication_not_overlapped_ns;
      row.overlapped_ns = step.overlapped_ns();
      row.communication_ns = step.communication_ns;
      row.free_ns = step.free_ns;
      row.stage_ns = step.stage_ns();
      row.bubble_ns = step.bubble_ns;
      row.communication_not_overlapped_exclude_receive_ns =
          step.communication_not_overlapped_exclude_receive_ns();
      row.preparing_ns = step.preparing_ns;
      by_step[step.step].push_back(std::move(row));
    }
  }
  for (auto& [step, rows] : by_step) {
    ClusterStepRow stage;
    stage.step = step;
    stage.type = ClusterStepRow::Type::kStage;
    std::vector<int32_t> ranks;
    for (const ClusterStepRow& row : rows) {
      ranks.push_back(std::stoi(row.index));
      stage.computing_ns = std::max(stage.computing_ns, row.computing_ns);
      stage.communication_not_overlapped_ns =
          std::max(stage.communication_not_overlapped_ns, row.communication_not_overlapped_ns);
      stage.overlapped_ns = std::max(stage.overlapped_ns, row.overlapped_ns);
      stage.communication_ns = std::max(stage.communication_ns, row.communication_ns);
      stage.free_ns = std::max(stage.free_ns, row.free_ns);
      stage.stage_ns = std::max(stage.stage_ns, row.stage_ns);
      stage.bubble_ns = std::max(stage.bubble_ns, row.bubble_ns);
      stage.communication_not_overlapped_exclude_receive_ns =
          std::max(stage.communication_not_overlapped_exclude_receive_ns,
                   row.communication_not_overlapped_exclude_receive_ns);
      stage.preparing_ns = std::max(stage.preparing_ns, row.preparing_ns);
    }
    stage.index = RankSet(ranks);
    for (ClusterStepRow& row : rows) result.step_rows.push_back(std::move(row));
    result.step_rows.push_back(std::move(stage));
  }
}

// Matches the operations across ranks, fills the communication rows, each rank's wait per
// step, and the clock check's samples.
void BuildCommRows(const std::vector<RankSummary>& summaries, std::vector<WaitByStep>& waits,
                   ClusterResult& result) {
  std::unordered_map<std::string, uint32_t> type_ids;
  std::unordered_map<uint64_t, std::vector<Member>> groups;
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    const std::vector<RankCommOp>& ops = summaries[i].communication;
    for (uint32_t j = 0; j < ops.size(); ++j) {
      const uint32_t type = type_ids.try_emplace(ops[j].type, type_ids.size()).first->second;
      // Point-to-point operations pair with a peer, not with every rank: not matched.
      const uint64_t key = IsPointToPoint(ops[j].type)
                               ? (uint64_t{1} << 63) | (uint64_t{i} << 32) | j
                               : (uint64_t{type} << 32) | ops[j].sequence;
      groups[key].push_back({i, j});
    }
  }
  // Host index per summary, for transports and the clock check.
  std::map<std::string, uint32_t> host_ids;
  std::vector<uint32_t> host_of(summaries.size());
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    host_of[i] = host_ids.try_emplace(summaries[i].host, host_ids.size()).first->second;
  }
  std::vector<std::string> host_names(host_ids.size());
  for (const auto& [name, id] : host_ids) host_names[id] = name;
  // Hosts ordered by their first rank (summaries are by rank).
  std::vector<uint32_t> host_order;
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    if (std::find(host_order.begin(), host_order.end(), host_of[i]) == host_order.end())
      host_order.push_back(host_of[i]);
  }
  std::vector<std::vector<int64_t>> offsets(host_ids.size());
  std::vector<int64_t> same_host_spreads;

  struct Pending {
    int64_t step, first_start;
    std::string op_name;
    std::vector<ClusterCommRow> rows;
  };
  std::vector<Pending> pending;
  pending.reserve(groups.size());
  const uint32_t ranks = static_cast<uint32_t>(summaries.size());
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.summary < b.summary; });
    const RankCommOp& first = summaries[members[0].summary].communication[members[0].op];
    const bool p2p = IsPointToPoint(first.type);
    if (!p2p) {
      const uint32_t expected =
          first.group_size > 0 ? static_cast<uint32_t>(first.group_size) : ranks;
      if (members.size() < std::min(expected, ranks)) ++result.unmatched_ops;
    }
    int64_t last_arrival = INT64_MIN, first_start = INT64_MAX;
    std::vector<int32_t> member_ranks;
    bool one_host = true;
    for (const Member& m : members) {
      const RankCommOp& op = summaries[m.summary].communication[m.op];
      last_arrival = std::max(last_arrival, op.start_ns);
      first_start = std::min(first_start, op.start_ns);
      member_ranks.push_back(summaries[m.summary].rank);
      one_host &= host_of[m.summary] == host_of[members[0].summary];
    }
    Pending group;
    group.step = first.step;
    group.first_start = first_start;
    group.op_name = first.backend + "_" + first.type + "_" + std::to_string(first.sequence);
    const std::string group_name = RankSet(member_ranks);
    for (const Member& m : members) {
      const RankSummary& s = summaries[m.summary];
      const RankCommOp& op = s.communication[m.op];
      ClusterCommRow row;
      row.step = op.step;
      row.rank = s.rank;
      row.op_name = group.op_name;
      row.group_name = group_name;
      row.transport = one_host ? "intra-host" : "inter-host";
      row.start_ns = op.start_ns;
      row.elapse_ns = op.end_ns - op.start_ns;
      row.wait_ns = std::min(std::max<int64_t>(last_arrival - op.start_ns, 0), row.elapse_ns);
      row.synchronization_ns = row.wait_ns;
      row.transit_ns = row.elapse_ns - row.wait_ns;
      row.idle_ns = row.elapse_ns - row.transit_ns - row.wait_ns;
      row.bytes = op.bytes;
      waits[m.summary][op.step] += row.wait_ns;
      group.rows.push_back(std::move(row));
    }
    if (!p2p && members.size() > 1) {
      // Clock check: per host the median end of its ranks, against the reference host.
      std::vector<std::vector<int64_t>> ends(host_ids.size());
      for (const Member& m : members) {
        const RankCommOp& op = summaries[m.summary].communication[m.op];
        ends[host_of[m.summary]].push_back(op.end_ns);
      }
      for (const std::vector<int64_t>& host_ends : ends) {
        if (host_ends.size() < 2) continue;
        const auto [low, high] = std::minmax_element(host_ends.begin(), host_ends.end());
        same_host_spreads.push_back(*high - *low);
      }
      const uint32_t reference = host_order[0];
      if (!ends[reference].empty()) {
        const double reference_end = Median(ends[reference]);
        for (uint32_t h = 0; h < ends.size(); ++h) {
          if (h == reference || ends[h].empty()) continue;
          offsets[h].push_back(static_cast<int64_t>(std::llround(Median(ends[h]) - reference_end)));
        }
      }
    }
    pending.push_back(std::move(group));
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    if (a.step != b.step) return a.step < b.step;
    if (a.first_start != b.first_start) return a.first_start < b.first_start;
    if (a.op_name != b.op_name) return a.op_name < b.op_name;
    return a.rows[0].rank < b.rows[0].rank;
  });
  for (Pending& group : pending) {
    for (ClusterCommRow& row : group.rows) result.comm_rows.push_back(std::move(row));
  }

  for (uint32_t h : host_order) {
    HostClock clock;
    clock.host = host_names[h];
    for (uint32_t i = 0; i < summaries.size(); ++i) clock.ranks += host_of[i] == h;
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

void Diagnose(const std::vector<RankSummary>& summaries, const std::vector<WaitByStep>& waits,
              ClusterResult& result) {
  // Own time per rank and step, for the verdicts and the divergent steps.
  std::map<int64_t, std::vector<std::pair<int32_t, int64_t>>> own_by_step;
  for (uint32_t i = 0; i < summaries.size(); ++i) {
    const RankSummary& s = summaries[i];
    RankVerdict v;
    v.rank = s.rank;
    v.host = s.host;
    double own = 0, computing = 0, preparing = 0, free = 0, wait = 0, not_overlapped = 0;
    for (const RankStep& step : s.steps) {
      const auto found = waits[i].find(step.step);
      const int64_t step_wait = found == waits[i].end() ? 0 : found->second;
      const int64_t step_own = step.stage_ns() + step.preparing_ns - step_wait;
      own += static_cast<double>(step_own);
      computing += static_cast<double>(step.computing_ns);
      preparing += static_cast<double>(std::max(step.preparing_ns, step.input_wait_ns));
      free += static_cast<double>(step.free_ns);
      wait += static_cast<double>(step_wait);
      not_overlapped += static_cast<double>(step.communication_not_overlapped_ns);
      own_by_step[step.step].push_back({s.rank, step_own});
    }
    v.steps = s.steps.size();
    const double n = v.steps > 0 ? static_cast<double>(v.steps) : 1.0;
    v.own_ns = own / n;
    v.computing_ns = computing / n;
    v.preparing_ns = preparing / n;
    v.free_ns = free / n;
    v.communication_wait_ns = wait / n;
    v.communication_not_overlapped_ns = not_overlapped / n;
    result.verdicts.push_back(std::move(v));
  }
  if (result.verdicts.size() >= 2) {
    auto median_of = [&](double RankVerdict::*field) {
      std::vector<double> values;
      for (const RankVerdict& v : result.verdicts) values.push_back(v.*field);
      return Median(values);
    };
    const double own = median_of(&RankVerdict::own_ns);
    const double computing = median_of(&RankVerdict::computing_ns);
    const double preparing = median_of(&RankVerdict::preparing_ns);
    const double free = median_of(&RankVerdict::free_ns);
    std::vector<double> transits;
    for (const RankVerdict& v : result.verdicts)
      transits.push_back(
          std::max(v.communication_not_overlapped_ns - v.communication_wait_ns, 0.0));
    const double transit = Median(transits);
    for (RankVerdict& v : result.verdicts) {
      v.excess_ns = v.own_ns - own;
      if (own <= 0 || v.excess_ns <= kSpreadThreshold * own) continue;
      v.slow = true;
      const std::pair<const char*, double> causes[] = {
          {"compute", v.computing_ns - computing},
          {"data preparation", v.preparing_ns - preparing},
          {"host overhead", v.free_ns - free},
          {"communication transit",
           std::max(v.communication_not_overlapped_ns - v.communication_wait_ns, 0.0) - transit}};
      const auto* top =
          std::max_element(std::begin(causes), std::end(causes),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
      v.reason = top->first;
      v.reason_ns = top->second;
    }
  }
  for (const auto& [step, owns] : own_by_step) {
    if (owns.size() < 2) continue;
    DivergentStep d;
    d.step = step;
    double sum = 0;
    d.min_own_ns = INT64_MAX;
    d.max_own_ns = INT64_MIN;
    for (const auto& [rank, value] : owns) {
      sum += static_cast<double>(value);
      if (value > d.max_own_ns) {
        d.max_own_ns = value;
        d.slowest_rank = rank;
      }
      if (value < d.min_own_ns) {
        d.min_own_ns = value;
        d.fastest_rank = rank;
      }
    }
    const double mean = sum / static_cast<double>(owns.size());
    if (mean <= 0) continue;
    d.spread = static_cast<double>(d.max_own_ns - d.min_own_ns) / mean;
    if (d.spread > kSpreadThreshold) result.divergent_steps.push_back(d);
  }
  std::stable_sort(
      result.divergent_steps.begin(), result.divergent_steps.end(),
      [](const DivergentStep& a, const DivergentStep& b) { return a.spread > b.spread; });
}

void FindSlowLinks(ClusterResult& result) {
  // transport -> rank -> (bytes, transit ns)
  std::map<std::string, std::map<int32_t, std::pair<double, double>>> totals;
  for (const ClusterCommRow& row : result.comm_rows) {
    if (row.bytes <= 0 || row.transit_ns <= 0) continue;
    auto& [bytes, transit] = totals[row.transport][row.rank];
    bytes += static_cast<double>(row.bytes);
    transit += static_cast<double>(row.transit_ns);
  }
  for (const auto& [transport, ranks] : totals) {
    if (ranks.size() < 2) continue;
    std::vector<double> bandwidths;
    for (const auto& [rank, total] : ranks) bandwidths.push_back(total.first / total.second);
    const double median = Median(bandwidths);
    for (const auto& [rank, total] : ranks) {
      const double bandwidth = total.first / total.second;
      if (bandwidth < kBandwidthThreshold * median)
        result.slow_links.push_back({transport, rank, bandwidth, median});
    }
  }
}

}  // namespace

double ClusterCommRow::wait_ratio() const {
  const int64_t total = wait_ns + transit_ns;
  return total > 0 ? static_cast<double>(wait_ns) / static_cast<double>(total) : 0.0;
}

double ClusterCommRow::synchronization_ratio() const {
  const int64_t total = synchronization_ns + transit_ns;
  return total > 0 ? static_cast<double>(synchronization_ns) / static_cast<double>(total) : 0.0;
}

double ClusterCommRow::bandwidth_gbps() const {
  if (bytes <= 0 || transit_ns <= 0) return -1.0;
  return static_cast<double>(bytes) / static_cast<double>(transit_ns);
}

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
  for (const RankSummary& s : summaries) {
    result.ranks.push_back(
        {s.rank, s.device_id, s.host, s.sources, s.events, s.dropped_records, s.step_source});
    result.dropped_records += s.dropped_records;
    if (s.world_size > 0) result.world_size = std::max(result.world_size, s.world_size);
  }
  BuildStepRows(summaries, result);
  std::vector<WaitByStep> waits(summaries.size());
  BuildCommRows(summaries, waits, result);
  Diagnose(summaries, waits, result);
  FindSlowLinks(result);
  return result;
}

}  // namespace aiprof::analysis::cluster
