// The slow-rank diagnosis (analysis/cluster/slow_ranks.h): without a layout every rank is
// judged against the median rank of the job; with a pipeline layout a rank is judged
// within its stage and the stages against each other, so a last stage that computes more
// (the loss) flags the stage, not its ranks; the receive bubble counts as no transit.
#include "analysis/cluster/slow_ranks.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace aiprof::analysis::cluster {
namespace {

constexpr int64_t kMs = 1'000'000;

// A rank with `steps` identical steps: compute, free, not-overlapped communication (of
// which `bubble` in receives) and preparation, in ms.
RankSummary Rank(int32_t rank, int64_t computing, int64_t communication, int64_t bubble = 0,
                 int steps = 2) {
  RankSummary s;
  s.rank = rank;
  s.host = "h";
  for (int step = 0; step < steps; ++step) {
    RankStep& row = s.steps.emplace_back();
    row.step = step;
    row.computing_ns = computing * kMs;
    row.communication_ns = row.communication_not_overlapped_ns = communication * kMs;
    row.bubble_ns = bubble * kMs;
    row.free_ns = 1 * kMs;
  }
  return s;
}

// Two stages of two ranks: stage 0 = (0, 1), stage 1 = (2, 3).
ParallelLayout TwoStages() {
  ParallelLayout layout;
  layout.known = true;
  layout.source = "p2p peers";
  layout.stages = {{0, 1}, {2, 3}};
  for (int32_t rank = 0; rank < 4; ++rank) layout.positions[rank] = {rank % 2, rank / 2, 0};
  return layout;
}

const RankVerdict& VerdictOf(const SlowRankDiagnosis& d, int32_t rank) {
  for (const RankVerdict& v : d.ranks) {
    if (v.rank == rank) return v;
  }
  throw std::out_of_range("no verdict for rank " + std::to_string(rank));
}

TEST(SlowRanksTest, WithoutALayoutEveryRankIsJudgedAgainstTheJobsMedian) {
  const std::vector<RankSummary> ranks = {Rank(0, 10, 2), Rank(1, 10, 2), Rank(2, 20, 2),
                                          Rank(3, 10, 2)};
  const SlowRankDiagnosis d = DiagnoseSlowRanks(ranks, std::vector<WaitByStep>(4), {});
  EXPECT_TRUE(d.stages.empty());
  for (const RankVerdict& v : d.ranks) {
    EXPECT_EQ(v.stage, -1);
    EXPECT_EQ(v.slow, v.rank == 2) << v.rank;
  }
  EXPECT_EQ(VerdictOf(d, 2).reason, "compute");
  EXPECT_DOUBLE_EQ(VerdictOf(d, 2).excess_ns, 10.0 * kMs);
  ASSERT_EQ(d.divergent_steps.size(), 2u);
  EXPECT_EQ(d.divergent_steps[0].stage, -1);
  EXPECT_EQ(d.divergent_steps[0].slowest_rank, 2);
}

TEST(SlowRanksTest, ALastStageThatComputesMoreFlagsTheStageNotItsRanks) {
  // The last stage computes the loss (more compute); the first stage moves more data.
  const std::vector<RankSummary> ranks = {Rank(0, 10, 6), Rank(1, 10, 6), Rank(2, 16, 2),
                                          Rank(3, 16, 2)};
  const std::vector<WaitByStep> waits(4);
  const SlowRankDiagnosis whole_job = DiagnoseSlowRanks(ranks, waits, {});
  EXPECT_TRUE(VerdictOf(whole_job, 2).slow);  // the job's median mixes the stages

  const SlowRankDiagnosis d = DiagnoseSlowRanks(ranks, waits, TwoStages());
  for (const RankVerdict& v : d.ranks) {
    EXPECT_EQ(v.stage, v.rank / 2);
    EXPECT_FALSE(v.slow) << v.rank;
  }
  EXPECT_TRUE(d.divergent_steps.empty());
  ASSERT_EQ(d.stages.size(), 2u);
  EXPECT_EQ(d.stages[0].ranks, (std::vector<int32_t>{0, 1}));
  EXPECT_FALSE(d.stages[0].slow);
  EXPECT_TRUE(d.stages[1].slow);
  EXPECT_EQ(d.stages[1].reason, "compute");
  EXPECT_EQ(d.stages[1].steps, 2u);
  // Own times 17 and 19 ms: the median stage is at 18 ms.
  EXPECT_DOUBLE_EQ(d.stages[1].excess_ns, 1.0 * kMs);
}

TEST(SlowRanksTest, ARankIsSlowAgainstTheOtherRanksOfItsStage) {
  const std::vector<RankSummary> ranks = {Rank(0, 10, 6), Rank(1, 10, 6), Rank(2, 16, 2),
                                          Rank(3, 22, 2)};
  const SlowRankDiagnosis d = DiagnoseSlowRanks(ranks, std::vector<WaitByStep>(4), TwoStages());
  for (const RankVerdict& v : d.ranks) EXPECT_EQ(v.slow, v.rank == 3) << v.rank;
  EXPECT_EQ(VerdictOf(d, 3).reason, "compute");
  EXPECT_DOUBLE_EQ(VerdictOf(d, 3).excess_ns, 3.0 * kMs);  // against (19 + 25) / 2
  ASSERT_EQ(d.divergent_steps.size(), 2u);
  for (const DivergentStep& step : d.divergent_steps) {
    EXPECT_EQ(step.stage, 1);
    EXPECT_EQ(step.slowest_rank, 3);
    EXPECT_EQ(step.fastest_rank, 2);
  }
  // A stage takes its slowest rank's values per step.
  EXPECT_DOUBLE_EQ(d.stages[1].own_ns, 25.0 * kMs);
  EXPECT_DOUBLE_EQ(d.stages[1].computing_ns, 22.0 * kMs);
}

TEST(SlowRanksTest, TheReceiveBubbleIsNoTransitAndTheWaitIsNoOwnTime) {
  // Rank 1 waits 8 ms in receives (bubble) and 3 ms on collectives; its own time equals
  // the others', so it is not slow, and its transit is its 2 ms of other communication.
  std::vector<RankSummary> ranks = {Rank(0, 10, 2), Rank(1, 10, 13, 8), Rank(2, 10, 2)};
  std::vector<WaitByStep> waits(3);
  waits[1] = {{{0, 0}, 3 * kMs}, {{0, 1}, 3 * kMs}};
  const SlowRankDiagnosis d = DiagnoseSlowRanks(ranks, waits, {});
  for (const RankVerdict& v : d.ranks) {
    EXPECT_FALSE(v.slow) << v.rank;
    EXPECT_DOUBLE_EQ(v.own_ns, 13.0 * kMs) << v.rank;
    EXPECT_DOUBLE_EQ(v.transit_ns, 2.0 * kMs) << v.rank;
  }
  EXPECT_DOUBLE_EQ(VerdictOf(d, 1).communication_wait_ns, 3.0 * kMs);
}

}  // namespace
}  // namespace aiprof::analysis::cluster
