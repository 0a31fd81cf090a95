// Slow link: with several ranks, the spread of each rank's bandwidth per link type. The
// msprof-analyze advisor flags (max − min) / mean > 0.05 on the per-link-type bandwidth of
// communication.json (ascend-msprof-formats.md §3.2); the slow link is the rank whose
// transfers on that link type were slowest. Bandwidth is size over transit time, and
// transit excludes the wait for late peers only where the wait was derived from the peers'
// data (several ranks given together): otherwise a rank that waits would look slow.
#include <algorithm>
#include <map>
#include <utility>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

struct LinkTotals {
  int32_t rank = -1;
  TransportType transport = TransportType::kUnknown;
  uint64_t ops = 0;
  int64_t bytes = 0;
  int64_t transit_ns = 0;
  double gbps() const {
    return transit_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(transit_ns) : 0;
  }
};

std::string Gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f GB/s", value);
  return text;
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("slow_link.spread");
  std::map<std::pair<TransportType, int32_t>, LinkTotals> links;
  uint64_t sized = 0, measured = 0;
  for (const ProfileInput& profile : input.profiles) {
    for (const CommOpTiming& op : profile.analyses->communication_analysis.ops) {
      if (op.rank < 0 || op.bytes <= 0) continue;
      ++sized;
      if (op.wait_source != WaitSource::kPeers || op.time.transit_ns <= 0) continue;
      ++measured;
      LinkTotals& totals = links[{op.transport, op.rank}];
      totals.rank = op.rank;
      totals.transport = op.transport;
      ++totals.ops;
      totals.bytes += op.bytes;
      totals.transit_ns += op.time.transit_ns;
    }
  }
  if (sized == 0) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail =
        "not evaluated: no communication operation of known size on a known rank "
        "(communication_analysis)";
    return;
  }
  if (measured == 0) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail =
        "not evaluated: no operation's transit time is separated from its wait (give every "
        "rank's PROF_* directory together, so the wait comes from the peers' data)";
    return;
  }
  std::map<TransportType, std::vector<const LinkTotals*>> by_type;
  for (const auto& [key, totals] : links) by_type[key.first].push_back(&totals);

  EvidenceTable table{"Bandwidth by rank and link type",
                      {"link type", "rank", "operations", "size (MB)", "transit", "bandwidth"},
                      {},
                      {}};
  for (const auto& [key, totals] : links) {
    char size[32];
    std::snprintf(size, sizeof size, "%.3f", static_cast<double>(totals.bytes) / 1e6);
    table.rows.push_back({std::string(TransportTypeName(totals.transport)),
                          std::to_string(totals.rank), std::to_string(totals.ops), size,
                          Ms(totals.transit_ns), Gbps(totals.gbps())});
  }

  double worst = 0;
  std::string slow, why;
  size_t compared = 0;
  for (const auto& [type, ranks] : by_type) {
    if (ranks.size() < 2) continue;
    ++compared;
    double sum = 0;
    const LinkTotals *lowest = ranks[0], *highest = ranks[0];
    for (const LinkTotals* rank : ranks) {
      sum += rank->gbps();
      if (rank->gbps() < lowest->gbps()) lowest = rank;
      if (rank->gbps() > highest->gbps()) highest = rank;
    }
    const double mean = sum / static_cast<double>(ranks.size());
    const double spread = mean > 0 ? (highest->gbps() - lowest->gbps()) / mean : 0;
    if (spread > worst) worst = spread;
    if (spread > limit && (slow.empty() || spread >= worst)) {
      slow = "rank " + std::to_string(lowest->rank) + "'s " + std::string(TransportTypeName(type)) +
             " link";
      why = Gbps(lowest->gbps()) + " against a mean of " + Gbps(mean) + " over " +
            std::to_string(ranks.size()) + " ranks (spread " + Percent(spread) + ", threshold " +
            Percent(limit) + ")";
    }
  }
  if (compared == 0) {
    finding->status = RuleStatus::kNotEvaluated;
    finding->detail =
        "not evaluated: no link type with measured transfers on two ranks or more (give "
        "several ranks' PROF_* directories)";
    finding->evidence.push_back(std::move(table));
    return;
  }
  finding->status = RuleStatus::kPassed;
  if (slow.empty()) {
    finding->detail = "the ranks' bandwidth per link type agrees within " + Percent(worst) +
                      " (threshold " + Percent(limit) + ")";
    finding->evidence.push_back(std::move(table));
    return;
  }
  finding->status = RuleStatus::kTriggered;
  finding->severity =
      worst >= thresholds.Get("slow_link.high_spread") ? Severity::kHigh : Severity::kMedium;
  finding->impact = std::min(worst, 1.0);
  finding->detail = slow + " is slow: " + why;
  finding->evidence.push_back(std::move(table));
  finding->suggestion =
      "Check the slow rank's network path: the NIC or interconnect it uses (link errors, "
      "negotiated speed, NUMA placement of the NIC relative to the rank's CPU/GPU), other "
      "traffic on that host, and the backend's transport settings (NCCL_IB_*, NCCL_SOCKET_IFNAME, "
      "GLOO_SOCKET_IFNAME).";
}

}  // namespace

const RuleDefinition& SlowLinkRule() {
  static const RuleDefinition rule{
      "slow_link",
      "Slow link",
      {"communication_analysis (per rank: size and transit time by link type)"},
      {{"slow_link.spread", 0.05, "(max − min) / mean",
        "spread of a link type's bandwidth across ranks above which one rank's link is slow",
        "msprof-analyze advisor slow link: (max − min) / mean > 0.05 on per-link-type "
        "bandwidth (ascend-msprof-formats.md §3.2)"},
       {"slow_link.high_spread", 0.20, "(max − min) / mean",
        "spread from which the advice is high severity",
        "aiprof's choice, as slow_rank.high_spread (msprof's 20% trailing ratio, §1.9)"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
