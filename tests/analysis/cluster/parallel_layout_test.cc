// The parallel layout (analysis/cluster/parallel_layout.h) from the ranks' recorded process
// groups and from matched send/recv pairs: Megatron's 8-rank TP 2 × PP 2 × DP 2 with named
// groups, a 4-rank PP 2 × DP 2 known only from its pipeline neighbours, and what is no
// layout (a stray send in a data-parallel job, unnamed groups inside a stage).
#include "analysis/cluster/parallel_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

namespace aiprof::analysis::cluster {
namespace {

model::ProcessGroupInfo Group(std::string description, std::vector<int32_t> ranks) {
  model::ProcessGroupInfo group;
  group.description = std::move(description);
  group.ranks = std::move(ranks);
  return group;
}

// Megatron's rank layout (parallel_state.initialize_model_parallel) for TP 2, PP 2, DP 2:
// TP groups of consecutive ranks, PP groups strided by world / PP, DP groups inside a stage.
std::vector<RankSummary> MegatronRanks(const char* tp, const char* pp, const char* dp) {
  const std::vector<std::vector<int32_t>> tensor = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  const std::vector<std::vector<int32_t>> pipeline = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const std::vector<std::vector<int32_t>> data = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};
  std::vector<RankSummary> summaries(8);
  for (int32_t rank = 0; rank < 8; ++rank) {
    summaries[rank].rank = rank;
    summaries[rank].process_groups.push_back(Group("default_pg", {0, 1, 2, 3, 4, 5, 6, 7}));
    for (const auto* kind : {&tensor, &pipeline, &data}) {
      for (const std::vector<int32_t>& ranks : *kind) {
        if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) continue;
        summaries[rank].process_groups.push_back(Group(kind == &tensor     ? tp
                                                       : kind == &pipeline ? pp
                                                                           : dp,
                                                       ranks));
      }
    }
  }
  return summaries;
}

TEST(ParallelLayoutTest, NamedGroupsGiveEveryIndex) {
  for (const auto& names :
       {std::array<const char*, 3>{"tp", "pp", "dp"},
        std::array<const char*, 3>{"TENSOR_MODEL_PARALLEL_GROUP", "PIPELINE_MODEL_PARALLEL_GROUP",
                                   "DATA_PARALLEL_GROUP"}}) {
    const ParallelLayout layout =
        DeriveParallelLayout(MegatronRanks(names[0], names[1], names[2]), {});
    ASSERT_TRUE(layout.known) << names[0];
    EXPECT_EQ(layout.source, "group names");
    EXPECT_EQ(layout.stages.size(), 2u);
    EXPECT_EQ(layout.stages, (std::vector<std::vector<int32_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    // msprof-analyze's ParallelStrategyCalculator for the same sizes.
    const int32_t expected[8][3] = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {1, 0, 1},
                                    {0, 1, 0}, {0, 1, 1}, {1, 1, 0}, {1, 1, 1}};
    for (int32_t rank = 0; rank < 8; ++rank) {
      const ParallelPosition& p = layout.positions.at(rank);
      EXPECT_EQ(p.dp_index, expected[rank][0]) << rank;
      EXPECT_EQ(p.pp_index, expected[rank][1]) << rank;
      EXPECT_EQ(p.tp_index, expected[rank][2]) << rank;
    }
  }
}

TEST(ParallelLayoutTest, UnnamedGroupsInsideAStageLeaveDataAndTensorUnknown) {
  // Megatron's groups without names, pipelines from the send/recv pairs of each pipeline.
  const ParallelLayout layout =
      DeriveParallelLayout(MegatronRanks("", "", ""), {{0, 4}, {4, 0}, {1, 5}, {2, 6}, {3, 7}});
  ASSERT_TRUE(layout.known);
  EXPECT_EQ(layout.source, "p2p peers");
  for (int32_t rank = 0; rank < 8; ++rank) {
    EXPECT_EQ(layout.positions.at(rank).pp_index, rank / 4);
    EXPECT_EQ(layout.positions.at(rank).tp_index, -1);
    EXPECT_EQ(layout.positions.at(rank).dp_index, -1);
  }
}

TEST(ParallelLayoutTest, PipelineNeighboursWithoutNames) {
  // 4 ranks, 2 stages × 2 replicas (examples/pytorch/distributed_gloo.py
  // --pipeline-stages=2): pipelines (0, 2) and (1, 3), data-parallel groups (0, 1), (2, 3).
  std::vector<RankSummary> summaries(4);
  for (int32_t rank = 0; rank < 4; ++rank) {
    summaries[rank].rank = rank;
    summaries[rank].process_groups = {Group("default_pg", {0, 1, 2, 3}),
                                      Group("", {rank % 2, rank % 2 + 2}),
                                      Group("", {rank / 2 * 2, rank / 2 * 2 + 1})};
  }
  const ParallelLayout layout = DeriveParallelLayout(summaries, {{0, 2}, {2, 0}, {1, 3}, {3, 1}});
  ASSERT_TRUE(layout.known);
  EXPECT_EQ(layout.stages, (std::vector<std::vector<int32_t>>{{0, 1}, {2, 3}}));
  for (int32_t rank = 0; rank < 4; ++rank) {
    const ParallelPosition& p = layout.positions.at(rank);
    EXPECT_EQ(p.pp_index, rank / 2) << rank;
    EXPECT_EQ(p.dp_index, rank % 2) << rank;
    EXPECT_EQ(p.tp_index, 0) << rank;
  }
  EXPECT_EQ(layout.Describe(),
            "2 pipeline stage(s) (from p2p peers): stage 0 = (0, 1); "
            "stage 1 = (2, 3)");
}

TEST(ParallelLayoutTest, NoLayoutWithoutPipelinesOrNames) {
  std::vector<RankSummary> summaries(4);
  for (int32_t rank = 0; rank < 4; ++rank) {
    summaries[rank].rank = rank;
    summaries[rank].process_groups = {Group("default_pg", {0, 1, 2, 3})};
  }
  EXPECT_FALSE(DeriveParallelLayout(summaries, {}).known);
  // A data-parallel job that sends once from rank 0 to rank 1: no pipeline covers 2 and 3.
  EXPECT_FALSE(DeriveParallelLayout(summaries, {{0, 1}}).known);
  // Pipelines of different lengths are no regular layout.
  EXPECT_FALSE(DeriveParallelLayout(summaries, {{0, 1}, {1, 2}}).known);
  // One component of every rank (a ring exchange, or a pipeline without data parallelism)
  // cannot be told from other traffic by its peers alone.
  EXPECT_FALSE(DeriveParallelLayout(summaries, {{0, 1}, {1, 2}, {2, 3}, {3, 0}}).known);
  summaries.resize(2);  // the 2-rank data-parallel example: one send from 0 to 1
  EXPECT_FALSE(DeriveParallelLayout(summaries, {{0, 1}}).known);
  EXPECT_EQ(DeriveParallelLayout(summaries, {}).Describe(), "");
}

TEST(ParallelLayoutTest, NamingSomeKindsMakesTheOthersSizeOne) {
  // A data-parallel job naming its one data-parallel group: PP and TP are 1.
  std::vector<RankSummary> summaries(2);
  for (int32_t rank = 0; rank < 2; ++rank) {
    summaries[rank].rank = rank;
    summaries[rank].process_groups = {Group("dp", {0, 1})};
  }
  const ParallelLayout layout = DeriveParallelLayout(summaries, {});
  ASSERT_TRUE(layout.known);
  EXPECT_EQ(layout.stages.size(), 1u);
  EXPECT_EQ(layout.positions.at(1).dp_index, 1);
  EXPECT_EQ(layout.positions.at(1).pp_index, 0);
  EXPECT_EQ(layout.positions.at(1).tp_index, 0);
}

}  // namespace
}  // namespace aiprof::analysis::cluster
