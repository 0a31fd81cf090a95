// The descriptions of the cluster's own results (analysis/cluster/slow_ranks.h,
// analysis/cluster/cluster_merge.h): cluster_base_info.json's keys and cluster.db's columns
// in their order, the columns shown only with a known parallel layout, and the cells as the
// cluster's writers hold them (ms and GB/s rounded to their decimals, flags 0/1).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "analysis/cluster/cluster_merge.h"

namespace aiprof::analysis::cluster {
namespace {

// The names `writer` shows, with or without a known layout: the files' headers, the
// database's names.
template <typename Row>
std::vector<std::string> Names(Columns<Row> columns, ColumnWriter writer, bool staged) {
  std::vector<std::string> names;
  for (const Column<Row>& column : columns) {
    if (!column.WrittenBy(writer, staged)) continue;
    names.emplace_back(writer == kFiles ? column.header : column.DatabaseName());
  }
  return names;
}

template <typename Row>
const Column<Row>& Find(Columns<Row> columns, std::string_view key) {
  for (const Column<Row>& column : columns) {
    if (column.key == key) return column;
  }
  ADD_FAILURE() << "no column " << key;
  return columns.front();
}

using Names_ = std::vector<std::string>;

TEST(ClusterResultColumnsTest, VerdictsKeepTheirKeysAndColumns) {
  const Names_ means_files = {"steps",
                              "own_time_per_step_ms",
                              "computing_per_step_ms",
                              "data_preparation_per_step_ms",
                              "free_per_step_ms",
                              "communication_wait_per_step_ms",
                              "slow",
                              "reason",
                              "excess_per_step_ms"};
  const Names_ means_table = {
      "steps",     "own_time_ms",           "computing_ms", "data_preparation_ms",
      "free_ms",   "communication_wait_ms", "slow",         "reason",
      "excess_ms", "reason_excess_ms"};
  EXPECT_EQ(Names<StepVerdict>(kStepVerdictColumns, kFiles, true), means_files);
  EXPECT_EQ(Names<StepVerdict>(kStepVerdictColumns, kDatabase, true), means_table);
  // A rank's stage only with a known layout, and never in the database.
  EXPECT_EQ(Names<RankVerdict>(kRankVerdictColumns, kFiles, false), Names_{"rank"});
  EXPECT_EQ(Names<RankVerdict>(kRankVerdictColumns, kFiles, true), (Names_{"rank", "stage"}));
  EXPECT_EQ(Names<RankVerdict>(kRankVerdictColumns, kDatabase, true), (Names_{"rank_id", "host"}));
  EXPECT_EQ(Names<StageVerdict>(kStageVerdictColumns, kFiles, true), Names_{"stage"});
  EXPECT_EQ(Names<StageVerdict>(kStageVerdictColumns, kDatabase, true), (Names_{"stage", "ranks"}));
  EXPECT_EQ(Names<DivergentStep>(kDivergentStepColumns, kFiles, false),
            (Names_{"slowest_rank", "fastest_rank", "max_own_ms", "min_own_ms", "spread"}));
  EXPECT_EQ(
      Names<DivergentStep>(kDivergentStepColumns, kFiles, true),
      (Names_{"stage", "slowest_rank", "fastest_rank", "max_own_ms", "min_own_ms", "spread"}));
  EXPECT_EQ(
      Names<DivergentStep>(kDivergentStepColumns, kDatabase, true),
      (Names_{"slowest_rank", "fastest_rank", "max_own_time_ms", "min_own_time_ms", "spread"}));
}

TEST(ClusterResultColumnsTest, LinksHostsAndRanksKeepTheirColumns) {
  EXPECT_EQ(Names<SlowLink>(kSlowLinkColumns, kFiles, false),
            (Names_{"transport", "rank", "bandwidth_gbps", "median_gbps"}));
  EXPECT_EQ(Names<SlowLink>(kSlowLinkColumns, kDatabase, false),
            (Names_{"transport_type", "rank_id", "bandwidth", "median_bandwidth"}));
  const Names_ clock = {"host", "ranks", "offset_ms", "uncertainty_ms", "samples"};
  EXPECT_EQ(Names<HostClock>(kHostClockColumns, kFiles, false), clock);
  EXPECT_EQ(Names<HostClock>(kHostClockColumns, kDatabase, false), clock);
  EXPECT_EQ(Names<RankInfo>(kRankInfoColumns, kFiles, false),
            (Names_{"rank", "host", "device_id", "step_source", "events", "dropped_records"}));
  EXPECT_EQ(Names<RankInfo>(kRankInfoColumns, kDatabase, false),
            (Names_{"rankId", "deviceId", "hostUid", "profilePath"}));
  EXPECT_EQ(Names<RankInfo>(kHostInfoColumns, kDatabase, false), (Names_{"hostUid", "hostName"}));
}

// The head of cluster_base_info.json and the ClusterBaseInfo table's keys (the table lists
// the ranks first, and the layout only where it is known).
TEST(ClusterResultColumnsTest, BaseInfoKeepsItsKeys) {
  EXPECT_EQ(
      Names<ClusterResult>(kClusterBaseInfoColumns, kFiles, true),
      (Names_{"world_size", "ranks_analysed", "dropped_records", "unmatched_communication_ops"}));
  EXPECT_EQ(Names<ClusterResult>(kClusterBaseInfoColumns, kDatabase, false),
            (Names_{"ranks", "world_size", "dropped_records", "unmatched_communication_ops",
                    "clock_alignment"}));
  EXPECT_EQ(Names<ClusterResult>(kClusterBaseInfoColumns, kDatabase, true),
            (Names_{"ranks", "world_size", "dropped_records", "unmatched_communication_ops",
                    "clock_alignment", "parallel_layout"}));
  EXPECT_EQ(Names<ClockAlignment>(kClockAlignmentColumns, kFiles, false),
            (Names_{"description", "same_host_end_spread_ms"}));
  ClusterResult result;
  result.ranks.resize(3);
  result.world_size = 4;
  EXPECT_EQ(Find<ClusterResult>(kClusterBaseInfoColumns, "ranks").Read(result).integer, 3);
  for (const Column<ClusterResult>& column : kClusterBaseInfoColumns) {
    if (column.key == "world_size") {
      EXPECT_EQ(column.Read(result).integer, 4);
    }
  }
}

// The means are ns; the writers show ms rounded to 6 decimals, the spread and bandwidths
// to 4, as msprof-analyze's cluster files and tables do.
TEST(ClusterResultColumnsTest, CellsAreTheClusterWritersValues) {
  RankVerdict v;
  v.steps = 3;
  v.own_ns = 12'345'678.9;
  v.slow = true;
  v.reason = "compute";
  v.reason_ns = 1'000'000.4;
  const Column<StepVerdict>& own = Find<StepVerdict>(kStepVerdictColumns, "own_time_ms");
  EXPECT_EQ(own.DatabaseType(), "REAL");
  EXPECT_DOUBLE_EQ(ClusterValue(own.unit, own.Read(v)), 12.345679);
  const Column<StepVerdict>& reason = Find<StepVerdict>(kStepVerdictColumns, "reason_excess_ms");
  EXPECT_DOUBLE_EQ(ClusterValue(reason.unit, reason.Read(v)), 1.0);
  const Column<StepVerdict>& slow = Find<StepVerdict>(kStepVerdictColumns, "slow");
  EXPECT_EQ(slow.unit, ColumnUnit::kFlag);
  EXPECT_EQ(slow.DatabaseType(), "INTEGER");
  EXPECT_EQ(slow.Read(v).integer, 1);
  EXPECT_EQ(Find<StepVerdict>(kStepVerdictColumns, "reason").Read(v).text, "compute");

  StageVerdict stage;
  stage.ranks = {2, 3};
  EXPECT_EQ(Find<StageVerdict>(kStageVerdictColumns, "ranks").Read(stage).text, "(2, 3)");

  DivergentStep d;
  d.max_own_ns = 7'654'321;
  d.spread = 0.123456;
  const Column<DivergentStep>& max = Find<DivergentStep>(kDivergentStepColumns, "max_own_time_ms");
  EXPECT_EQ(ClusterValue(max.unit, max.Read(d)), MillisValue(d.max_own_ns));
  const Column<DivergentStep>& spread = Find<DivergentStep>(kDivergentStepColumns, "spread");
  EXPECT_DOUBLE_EQ(ClusterValue(spread.unit, spread.Read(d)), 0.1235);

  SlowLink l{"HCCS", 1, 12.345678, 20.0};
  const Column<SlowLink>& bandwidth = Find<SlowLink>(kSlowLinkColumns, "bandwidth");
  EXPECT_DOUBLE_EQ(ClusterValue(bandwidth.unit, bandwidth.Read(l)), 12.3457);

  HostClock h;
  h.offset_ns = -1'500'000;
  const Column<HostClock>& offset = Find<HostClock>(kHostClockColumns, "offset_ms");
  EXPECT_EQ(ClusterValue(offset.unit, offset.Read(h)), MillisValue(h.offset_ns));

  RankInfo r;
  r.host_uid = 2;
  EXPECT_EQ(Find<RankInfo>(kRankInfoColumns, "profile_path").Read(r).text, "");
  r.sources = {"/a/PROF_1", "/a/PROF_2"};
  EXPECT_EQ(Find<RankInfo>(kRankInfoColumns, "profile_path").Read(r).text, "/a/PROF_1");
  EXPECT_EQ(Find<RankInfo>(kHostInfoColumns, "host_uid").Read(r).integer, 2);
}

}  // namespace
}  // namespace aiprof::analysis::cluster
