#include "export/cluster/cluster_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include "model/steps.h"

namespace aiprof::exporter {

namespace {

constexpr size_t kShown = 5;

using analysis::Column;
using analysis::ColumnUnit;
using analysis::cluster::DivergentStep;
using analysis::cluster::SlowLink;
using analysis::cluster::StepVerdict;

// A column of a described result by its key; a key the description lacks does not compile.
template <typename Row, size_t N>
consteval const Column<Row>& Described(const Column<Row> (&columns)[N], std::string_view key) {
  for (const Column<Row>& column : columns) {
    if (column.key == key) return column;
  }
  throw "no such column";
}

// The figures the report prints, in their described units.
constexpr const Column<StepVerdict>& kExcess =
    Described(analysis::cluster::kStepVerdictColumns, "excess_ms");
constexpr const Column<StepVerdict>& kReasonExcess =
    Described(analysis::cluster::kStepVerdictColumns, "reason_excess_ms");
constexpr const Column<StepVerdict>& kWait =
    Described(analysis::cluster::kStepVerdictColumns, "communication_wait_ms");
constexpr const Column<SlowLink>& kBandwidth =
    Described(analysis::cluster::kSlowLinkColumns, "bandwidth");
constexpr const Column<SlowLink>& kMedianBandwidth =
    Described(analysis::cluster::kSlowLinkColumns, "median_bandwidth");
constexpr const Column<DivergentStep>& kMaxOwn =
    Described(analysis::cluster::kDivergentStepColumns, "max_own_time_ms");
constexpr const Column<DivergentStep>& kMinOwn =
    Described(analysis::cluster::kDivergentStepColumns, "min_own_time_ms");
constexpr const Column<DivergentStep>& kSpread =
    Described(analysis::cluster::kDivergentStepColumns, "spread");

// A number of a unit for the terminal: ms and GB/s with 3 decimals, a share as a whole
// percentage.
std::string Figure(ColumnUnit unit, const analysis::CellValue& cell) {
  const double value = analysis::ScaledValue(unit, cell);
  char text[48];
  switch (unit) {
    case ColumnUnit::kMilliseconds:
      std::snprintf(text, sizeof text, "%.3f ms", value);
      break;
    case ColumnUnit::kGigabytesPerSecond:
      std::snprintf(text, sizeof text, "%.3f GB/s", value);
      break;
    case ColumnUnit::kRatio:
      std::snprintf(text, sizeof text, "%.0f%%", value * 100);
      break;
    default:
      std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

template <typename Row>
std::string Figure(const Column<Row>& column, const std::type_identity_t<Row>& row) {
  return Figure(column.unit, column.Read(row));
}

std::string Ms(double ns) {
  analysis::CellValue cell;
  cell.kind = analysis::CellValue::kReal;
  cell.real = ns;
  return Figure(ColumnUnit::kMilliseconds, cell);
}

// The stages compared with each other: per step, a stage takes its slowest rank's values.
void PrintSlowStages(const analysis::cluster::ClusterResult& result, std::ostream& out) {
  std::vector<const analysis::cluster::StageVerdict*> slow;
  for (const auto& v : result.stage_verdicts) {
    if (v.slow) slow.push_back(&v);
  }
  if (slow.empty()) {
    out << "Slow stages: none (every pipeline stage's own time per step, its slowest rank's, "
           "within 5% of the median stage's)\n";
    return;
  }
  out << "Slow stages (own time per step of the stage's slowest rank, against the median "
         "stage):\n";
  for (const auto* v : slow) {
    out << "  stage " << v->stage << " " << analysis::cluster::RankSet(v->ranks) << ": +"
        << Figure(kExcess, *v) << " per step; why: " << v->reason << " (+"
        << Figure(kReasonExcess, *v) << " per step)\n";
  }
}

// The critical rank per step (--critical-path): which rank gates it and why.
void PrintCriticalSteps(const analysis::cluster::ClusterResult& result, std::ostream& out) {
  const auto& steps = result.critical_steps;
  if (steps.empty()) return;
  std::map<int32_t, size_t> gating;
  for (const auto& s : steps) ++gating[s.critical_rank];
  out << "Critical path (each rank's own path, joined at the collectives):";
  for (const auto& [rank, count] : gating) {
    out << " rank " << rank << " gates " << count << " of " << steps.size() << " step(s);";
  }
  out << "\n";
  for (size_t i = 0; i < steps.size() && i < kShown; ++i) {
    const auto& s = steps[i];
    const int64_t own = s.critical_own.total();
    char line[240];
    std::snprintf(
        line, sizeof line,
        "  step %s: rank %d, %s of %s on the job's path; its own path is %.0f%% %s; "
        "the others wait %s on it\n",
        model::FormatStepLabel(result.several_loops, s.loop, static_cast<uint64_t>(s.step)).c_str(),
        s.critical_rank, Ms(static_cast<double>(s.on_path_ns)).c_str(),
        Ms(static_cast<double>(s.duration_ns())).c_str(),
        own > 0 ? 100.0 * static_cast<double>(s.critical_own[s.gate]) / static_cast<double>(own)
                : 0.0,
        std::string(analysis::PathCategoryName(s.gate)).c_str(),
        Ms(static_cast<double>(s.peers_wait_ns)).c_str());
    out << line;
  }
  if (steps.size() > kShown) {
    out << "  ... " << steps.size() - kShown << " more step(s) in cluster_critical_path.csv\n";
  }
}

}  // namespace

void PrintClusterReport(const analysis::cluster::ClusterResult& result, std::ostream& out) {
  std::set<std::string> hosts;
  std::set<int64_t> steps;
  for (const auto& rank : result.ranks) hosts.insert(rank.host);
  for (const auto& row : result.step_rows) steps.insert(row.step);
  out << "aiprof cluster: " << result.ranks.size() << " rank(s)";
  if (result.world_size > 0) out << " of a world of " << result.world_size;
  out << " on " << hosts.size() << " host(s), " << steps.size() << " step(s), "
      << result.comm_ops.size() << " communication op(s); " << result.dropped_records
      << " dropped records\n";
  if (result.world_size > 0 && result.ranks.size() < static_cast<size_t>(result.world_size)) {
    out << "  missing ranks: only " << result.ranks.size() << " of " << result.world_size
        << " were found; waits on collectives are measured among those present\n";
  }
  if (!result.wait_note.empty()) out << "  " << result.wait_note << "\n";
  if (result.layout.known) out << "Parallel layout: " << result.layout.Describe() << "\n";
  out << "Clock alignment: " << result.clock.Describe();
  if (result.clock.same_host_end_spread_ns > 0)
    out << "; ends of a collective on one host differ by "
        << Ms(result.clock.same_host_end_spread_ns) << " (median)";
  out << "\n";

  // With a known layout each rank is judged against the median rank of its own pipeline
  // stage, and the stages against the median stage (analysis/cluster/slow_ranks.h).
  const bool staged = result.layout.known;
  const char* median_rank = staged ? "the median rank of its pipeline stage" : "the median rank";
  std::vector<const analysis::cluster::RankVerdict*> slow;
  // stage -> the collective wait of its ranks that are not slow (the ranks a slow rank
  // holds up: its data-parallel peers are in its stage; stage -1 is every rank).
  std::map<int32_t, std::pair<double, size_t>> others_wait;
  for (const auto& v : result.verdicts) {
    if (v.slow) {
      slow.push_back(&v);
    } else {
      others_wait[v.stage].first += v.communication_wait_ns;
      ++others_wait[v.stage].second;
    }
  }
  std::sort(slow.begin(), slow.end(),
            [](const auto* a, const auto* b) { return a->excess_ns > b->excess_ns; });
  if (result.verdicts.size() < 2) {
    out << "Slow ranks: one rank only, nothing to compare\n";
  } else if (slow.empty()) {
    out << "Slow ranks: none (every rank's own time per step within 5% of " << median_rank
        << "'s)\n";
  } else {
    out << "Slow ranks (own time per step = step time less the wait for other ranks, against "
        << median_rank << "):\n";
    for (size_t i = 0; i < slow.size() && i < kShown; ++i) {
      const auto& v = *slow[i];
      out << "  rank " << v.rank << " (" << v.host;
      if (staged) out << ", stage " << v.stage;
      out << "): +" << Figure(kExcess, v) << " per step; why: " << v.reason << " (+"
          << Figure(kReasonExcess, v) << " per step)";
      const auto [wait, others] = others_wait[v.stage];
      if (others > 0) {
        out << "; the other ranks" << (staged ? " of its stage" : "") << " wait "
            << Ms(wait / static_cast<double>(others)) << " per step on collectives (it waits "
            << Figure(kWait, v) << ")";
      }
      out << "\n";
    }
  }
  if (staged) PrintSlowStages(result, out);
  if (result.slow_links.empty()) {
    out << "Slow links: none (no rank below 80% of its link type's median bandwidth)\n";
  } else {
    out << "Slow links:\n";
    for (size_t i = 0; i < result.slow_links.size() && i < kShown; ++i) {
      const auto& l = result.slow_links[i];
      out << "  rank " << l.rank << " " << l.transport << ": " << Figure(kBandwidth, l)
          << ", median " << Figure(kMedianBandwidth, l) << "\n";
    }
  }
  if (result.divergent_steps.empty()) {
    out << "Divergent steps: none (ranks' own time within 5% in every step"
        << (staged ? " and pipeline stage" : "") << ")\n";
  } else {
    out << "Divergent steps (" << result.divergent_steps.size() << ", largest spread first):\n";
    for (size_t i = 0; i < result.divergent_steps.size() && i < kShown; ++i) {
      const auto& d = result.divergent_steps[i];
      const std::string step =
          d.step == analysis::cluster::kNoStep
              ? std::string("whole run (no steps)")
              : "step " + model::FormatStepLabel(result.several_loops, d.loop,
                                                 static_cast<uint64_t>(d.step));
      const std::string where = staged ? " (stage " + std::to_string(d.stage) + ")" : "";
      out << "  " << step << where << ": rank " << d.slowest_rank << " " << Figure(kMaxOwn, d)
          << " vs rank " << d.fastest_rank << " " << Figure(kMinOwn, d) << " (spread "
          << Figure(kSpread, d) << ")\n";
    }
  }
  PrintCriticalSteps(result, out);
}

}  // namespace aiprof::exporter
