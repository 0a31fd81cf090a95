// The cluster analysis: merges the ranks' summaries (rank_summary.h), never their traces,
// into msprof-analyze's cluster tables and a diagnosis.
//
// Communication: the ranks' operations (communication_analysis.h) are put together and
// analysis::DerivePeerWait, the one derivation of wait/transit, runs over all of them (the
// n-th collective of a group on every rank is one operation; the last rank to arrive
// makes the others wait). A transport the rank alone could not tell is set from the ranks'
// hosts: intra-host when every rank of the group (the peer, for p2p) shares the host.
// The matrix and the wait note are rebuilt from the merged operations (RebuildFromOps).
//
// Critical path: with the ranks' own paths in their summaries, the job's critical rank per
// step and why (cluster_critical_path.h), from the merged operations.
// Diagnosis: slow ranks, slow pipeline stages and divergent steps (slow_ranks.h); a slow
// link: a rank whose mean transit bandwidth on a transport is below 80% of the
// transport's median (msprof's utilisation threshold), among ranks that moved at least
// 1 MB on it (smaller totals measure latency, not bandwidth).
// Clock alignment: ranks on one host share CLOCK_REALTIME. Across hosts the ends of a
// matched collective are simultaneous up to the transit of its last message, so the
// median difference of the hosts' median end times estimates each host's offset, and
// half the interquartile range of those differences is its uncertainty.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cluster/cluster_critical_path.h"
#include "analysis/cluster/parallel_layout.h"
#include "analysis/cluster/rank_summary.h"
#include "analysis/cluster/slow_ranks.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis::cluster {

// One row of cluster_step_trace_time: a rank's step (kRank) or the maximum over the ranks
// of one pipeline stage (kStage; every rank forms one stage while the parallel layout is
// unknown, parallel_layout.h).
struct ClusterStepRow {
  enum class Type : uint8_t { kRank, kStage };
  int64_t step = kNoStep;
  uint32_t loop = 0;  // loop ordinal (model/steps.h)
  Type type = Type::kRank;
  std::string index;            // the rank ("3"), or the stage's ranks ("(0, 1, 2, 3)")
  ParallelPosition position;    // a rank row's indices; -1 (NA) for stage rows
  StepTraceTimeValues times{};  // the step_trace_time columns (analysis/step_breakdown.h)
};

struct SlowLink {
  std::string transport;
  int32_t rank = -1;
  double bandwidth_gbps = 0;
  double median_gbps = 0;
};

// cluster_base_info.json's slow_links and cluster.db's ClusterSlowLink.
inline constexpr Column<SlowLink> kSlowLinkColumns[] = {
    TextColumn<SlowLink>("transport", "transport_type", "", kFiles | kDatabase,
                         [](const SlowLink& l) { return l.transport; }),
    {"rank", "rank_id", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const SlowLink& l) -> int64_t { return l.rank; }},
    RealColumn<SlowLink>("bandwidth_gbps", "bandwidth", "", ColumnUnit::kGigabytesPerSecond,
                         kFiles | kDatabase, [](const SlowLink& l) { return l.bandwidth_gbps; }),
    RealColumn<SlowLink>("median_gbps", "median_bandwidth", "", ColumnUnit::kGigabytesPerSecond,
                         kFiles | kDatabase, [](const SlowLink& l) { return l.median_gbps; }),
};

struct HostClock {
  std::string host;
  uint32_t ranks = 0;
  int64_t offset_ns = 0;       // estimated offset to the first host
  int64_t uncertainty_ns = 0;  // half the interquartile range; 0 on the reference host
  uint64_t samples = 0;        // matched collectives the estimate is from
};

// cluster_base_info.json's clock_alignment hosts and cluster.db's ClusterHostClock.
inline constexpr Column<HostClock> kHostClockColumns[] = {
    TextColumn<HostClock>("host", "host", "", kFiles | kDatabase,
                          [](const HostClock& h) { return h.host; }),
    {"ranks", "ranks", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const HostClock& h) -> int64_t { return h.ranks; }},
    {"offset_ms", "offset_ms", "", ColumnUnit::kMilliseconds, kFiles | kDatabase,
     [](const HostClock& h) { return h.offset_ns; }},
    {"uncertainty_ms", "uncertainty_ms", "", ColumnUnit::kMilliseconds, kFiles | kDatabase,
     [](const HostClock& h) { return h.uncertainty_ns; }},
    {"samples", "samples", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const HostClock& h) { return static_cast<int64_t>(h.samples); }},
};

struct ClockAlignment {
  std::vector<HostClock> hosts;  // by first rank
  // Same-host end spread of matched collectives (median): the resolution of the check.
  int64_t same_host_end_spread_ns = 0;
  std::string Describe() const;
};

// cluster_base_info.json's clock_alignment, before its hosts (kHostClockColumns); cluster.db
// holds the description in ClusterBaseInfo (kClusterBaseInfoColumns).
inline constexpr Column<ClockAlignment> kClockAlignmentColumns[] = {
    TextColumn<ClockAlignment>("description", "description", "", kFiles,
                               [](const ClockAlignment& c) { return c.Describe(); }),
    {"same_host_end_spread_ms", "same_host_end_spread_ms", "", ColumnUnit::kMilliseconds, kFiles,
     [](const ClockAlignment& c) { return c.same_host_end_spread_ns; }},
};

struct RankInfo {
  int32_t rank = -1;
  int32_t device_id = -1;
  std::string host;
  std::vector<std::string> sources;
  uint64_t events = 0;
  uint64_t dropped_records = 0;
  std::string step_source;
  uint32_t host_uid = 0;  // the host's number, the hosts in order of their first rank
};

// cluster_base_info.json's ranks and cluster.db's RankDeviceMap. The files also list a
// rank's sources, which is no cell: their writer adds the list after these columns.
inline constexpr Column<RankInfo> kRankInfoColumns[] = {
    {"rank", "rank", "rankId", ColumnUnit::kCount, kFiles | kDatabase,
     [](const RankInfo& r) -> int64_t { return r.rank; }},
    TextColumn<RankInfo>("host", "host", "", kFiles, [](const RankInfo& r) { return r.host; }),
    {"device_id", "device_id", "deviceId", ColumnUnit::kCount, kFiles | kDatabase,
     [](const RankInfo& r) -> int64_t { return r.device_id; }},
    {"", "host_uid", "hostUid", ColumnUnit::kCount, kDatabase,
     [](const RankInfo& r) -> int64_t { return r.host_uid; }},
    TextColumn<RankInfo>(
        "", "profile_path", "profilePath", kDatabase,
        [](const RankInfo& r) { return r.sources.empty() ? std::string() : r.sources.front(); }),
    TextColumn<RankInfo>("step_source", "step_source", "", kFiles,
                         [](const RankInfo& r) { return r.step_source; }),
    {"events", "events", "", ColumnUnit::kCount, kFiles,
     [](const RankInfo& r) { return static_cast<int64_t>(r.events); }},
    {"dropped_records", "dropped_records", "", ColumnUnit::kCount, kFiles,
     [](const RankInfo& r) { return static_cast<int64_t>(r.dropped_records); }},
};

// cluster.db's HostInfo, a row per host (the first rank's on it).
inline constexpr Column<RankInfo> kHostInfoColumns[] = {
    {"", "host_uid", "hostUid", ColumnUnit::kCount, kDatabase,
     [](const RankInfo& r) -> int64_t { return r.host_uid; }},
    TextColumn<RankInfo>("", "host", "hostName", kDatabase,
                         [](const RankInfo& r) { return r.host; }),
};

struct ClusterResult {
  std::vector<RankInfo> ranks;  // by rank
  int32_t world_size = -1;      // from the metadata; -1 unknown
  uint64_t dropped_records = 0;
  ParallelLayout layout;
  std::vector<ClusterStepRow> step_rows;  // by step, ranks then the stage rows by stage
  bool several_loops = false;          // a rank ran several training loops: steps are "loop:number"
  std::vector<CommOpTiming> comm_ops;  // by step, operation start, name, rank
  std::vector<CommMatrixEntry> matrix;       // p2p operations with a known peer, by step
  std::string wait_note;                     // why some waits are not measured; "" if all are
  std::vector<CommGroup> groups;             // by name
  uint64_t unmatched_ops = 0;                // operations whose wait no peer could tell
  std::vector<RankVerdict> verdicts;         // by rank
  std::vector<StageVerdict> stage_verdicts;  // by stage; empty when the layout is unknown
  std::vector<SlowLink> slow_links;
  std::vector<DivergentStep> divergent_steps;  // by spread, largest first
  ClockAlignment clock;
  // The critical rank per step (cluster_critical_path.h): only when the summaries carry
  // their own critical paths (`aiprof cluster --critical-path`).
  std::vector<ClusterCriticalStep> critical_steps;
};

// The job's figures: the head of cluster_base_info.json (then its parallel layout, ranks,
// clock alignment and diagnosis) and cluster.db's ClusterBaseInfo, a key/value table (the
// database name, the value as text). The table lists the ranks before the world size, so
// the world size is described once per place.
inline constexpr Column<ClusterResult> kClusterBaseInfoColumns[] = {
    {"world_size", "world_size", "", ColumnUnit::kCount, kFiles,
     [](const ClusterResult& r) -> int64_t { return r.world_size; }},
    {"ranks_analysed", "ranks", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterResult& r) { return static_cast<int64_t>(r.ranks.size()); }},
    {"", "world_size", "", ColumnUnit::kCount, kDatabase,
     [](const ClusterResult& r) -> int64_t { return r.world_size; }},
    {"dropped_records", "dropped_records", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const ClusterResult& r) { return static_cast<int64_t>(r.dropped_records); }},
    {"unmatched_communication_ops", "unmatched_communication_ops", "", ColumnUnit::kCount,
     kFiles | kDatabase,
     [](const ClusterResult& r) { return static_cast<int64_t>(r.unmatched_ops); }},
    TextColumn<ClusterResult>("", "clock_alignment", "", kDatabase,
                              [](const ClusterResult& r) { return r.clock.Describe(); }),
    TextColumn<ClusterResult>("", "parallel_layout", "", kDatabase | kWithParallelLayout,
                              [](const ClusterResult& r) { return r.layout.Describe(); }),
};

// `summaries` in any order; the result is ordered by rank, so any split of the ranks
// (threads, MPI processes) gives the same result.
ClusterResult MergeRankSummaries(std::vector<RankSummary> summaries);

}  // namespace aiprof::analysis::cluster
