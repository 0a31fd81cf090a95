// The critical rank per step from the ranks' summaries (analysis/cluster/cluster_critical_path.h)
// on hand-built summaries with a known answer: three ranks, two all_reduces in a step; the
// walk goes back from the last rank to end, through the last arrival of each collective, so
// the time on each rank sums to the step; the rank with most of it gates the step, and its
// own path says why. Summaries without their own paths give no critical steps; the paths
// survive the summaries' serialisation.
#include "analysis/cluster/cluster_critical_path.h"

#include <gtest/gtest.h>

#include <string>

namespace aiprof::analysis::cluster {
namespace {

constexpr int64_t kMs = 1'000'000;

CommOpTiming AllReduce(int32_t rank, uint64_t sequence, int64_t start, int64_t end, int64_t wait) {
  CommOpTiming op;
  op.rank = rank;
  op.name = "gloo_allreduce_" + std::to_string(sequence);
  op.group = "world";
  op.type = model::CommOpType::kAllReduce;
  op.sequence = sequence;
  op.step = 0;
  op.time.start_ns = start * kMs;
  op.end_ns = end * kMs;
  op.time.elapse_ns = (end - start) * kMs;
  op.time.wait_ns = wait * kMs;
  return op;
}

RankSummary Rank(int32_t rank, int64_t end, CategoryTimes own) {
  RankSummary s;
  s.rank = rank;
  RankStep& step = s.steps.emplace_back();
  step.step = 0;
  step.begin_ns = 0;
  step.end_ns = end * kMs;
  step.has_path = true;
  step.path_begin_ns = 0;
  step.path_end_ns = end * kMs;
  step.path = own;
  return s;
}

CategoryTimes Own(int64_t compute, int64_t communication) {
  CategoryTimes own;
  own[PathCategory::kCompute] = compute * kMs;
  own[PathCategory::kCommTransit] = communication * kMs;
  return own;
}

// Rank 1 arrives last at the first all_reduce [.., 50), rank 2 at the second [.., 95); rank 0
// ends the step last (100). Back from rank 0's end: 100 − 92 on rank 0 (its work after the
// second all_reduce and the transit after rank 2 arrived), 92 − 40 on rank 2, 40 on rank 1.
TEST(ClusterCriticalPathTest, TheLastArrivalsGateTheStep) {
  const std::vector<RankSummary> ranks = {Rank(0, 100, Own(30, 70)), Rank(1, 100, Own(45, 55)),
                                          Rank(2, 98, Own(70, 28))};
  const std::vector<CommOpTiming> ops = {AllReduce(0, 0, 10, 50, 30), AllReduce(1, 0, 40, 50, 0),
                                         AllReduce(2, 0, 20, 50, 20), AllReduce(0, 1, 60, 95, 32),
                                         AllReduce(1, 1, 90, 95, 2),  AllReduce(2, 1, 92, 95, 0)};
  const std::vector<ClusterCriticalStep> steps = ComputeClusterCriticalPath(ranks, ops);
  ASSERT_EQ(steps.size(), 1u);
  const ClusterCriticalStep& s = steps[0];
  EXPECT_EQ(s.ranks, 3u);
  EXPECT_EQ(s.duration_ns(), 100 * kMs);
  EXPECT_EQ(s.last_rank, 0);
  EXPECT_EQ(s.critical_rank, 2);
  EXPECT_EQ(s.on_path_ns, 52 * kMs);
  EXPECT_EQ(s.gated_operations, 1u);
  EXPECT_EQ(s.gate, PathCategory::kCompute);
  EXPECT_EQ(s.critical_own[PathCategory::kCompute], 70 * kMs);
  EXPECT_EQ(s.peers_wait_ns, (30 + 32 + 0 + 2) * kMs);  // ranks 0 and 1
}

// Rank 1 arrives last at every collective and ends last: the whole step is on it.
TEST(ClusterCriticalPathTest, ASlowRankHoldsTheWholePath) {
  const std::vector<RankSummary> ranks = {Rank(0, 80, Own(20, 60)), Rank(1, 80, Own(75, 5))};
  const std::vector<CommOpTiming> ops = {AllReduce(0, 0, 10, 80, 65), AllReduce(1, 0, 75, 80, 0)};
  const std::vector<ClusterCriticalStep> steps = ComputeClusterCriticalPath(ranks, ops);
  ASSERT_EQ(steps.size(), 1u);
  // Back from rank 0's end (the first of the ties): 80 − 75 on rank 0, then 75 on rank 1.
  EXPECT_EQ(steps[0].critical_rank, 1);
  EXPECT_EQ(steps[0].on_path_ns, 75 * kMs);
  EXPECT_EQ(steps[0].peers_wait_ns, 65 * kMs);
}

TEST(ClusterCriticalPathTest, SummariesWithoutTheirPathsGiveNone) {
  std::vector<RankSummary> ranks = {Rank(0, 100, Own(30, 70)), Rank(1, 100, Own(45, 55))};
  for (RankSummary& s : ranks) s.steps[0].has_path = false;
  EXPECT_TRUE(ComputeClusterCriticalPath(ranks, {}).empty());
}

TEST(ClusterCriticalPathTest, ThePathSurvivesTheSummarysBytes) {
  const RankSummary rank = Rank(3, 100, Own(30, 70));
  RankSummary back;
  std::string error;
  ASSERT_TRUE(DeserializeRankSummary(SerializeRankSummary(rank), &back, &error)) << error;
  ASSERT_EQ(back.steps.size(), 1u);
  EXPECT_TRUE(back.steps[0].has_path);
  EXPECT_EQ(back.steps[0].path_end_ns, 100 * kMs);
  EXPECT_EQ(back.steps[0].path[PathCategory::kCommTransit], 70 * kMs);
}

}  // namespace
}  // namespace aiprof::analysis::cluster
