// The advice rules over step time: data loading, host bound, slow steps, low utilisation and
// communication not overlapped, each at, below and above its threshold, and not evaluated
// without its data.
#include <gtest/gtest.h>

#include "analysis/advice/advice_test_support.h"

namespace aiprof::analysis::advice {
namespace {

using testing::Evaluate;
using testing::HandBuiltProfiles;

// Ten steps of 100 ns, each waiting `wait` ns for input.
HandBuiltProfiles InputWait(int64_t wait) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, std::vector<int64_t>(10, 100), 0.5);
  DataPreparationResult& data = b.Set(0).data_preparation;
  data.inputs = {"DataLoader operators"};
  for (uint64_t step = 0; step < 10; ++step) {
    DataPreparationStep row;
    row.step_id = static_cast<uint32_t>(step);
    row.step = step;
    row.wait_ns = wait;
    row.begin_ns = static_cast<int64_t>(step) * 100;
    row.end_ns = row.begin_ns + 100;
    data.steps.push_back(row);
    data.total_wait_ns += row.wait_ns;
    data.total_step_ns += 100;
  }
  return b;
}

TEST(DataLoadingRule, TriggersAboveFivePercentOfTheStep) {
  EXPECT_EQ(Evaluate(InputWait(4).input(), "data_loading").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(InputWait(5).input(), "data_loading").status, RuleStatus::kPassed);
  Finding above = Evaluate(InputWait(6).input(), "data_loading");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.severity, Severity::kMedium);
  EXPECT_NEAR(above.impact, 0.06, 1e-9);
  ASSERT_EQ(above.evidence.size(), 1u);
  EXPECT_EQ(above.evidence[0].rows.size(), 5u);
  // Each row says which step it is, so the UI opens it on the timeline.
  ASSERT_EQ(above.evidence[0].targets.size(), 5u);
  EXPECT_EQ(above.evidence[0].targets[0].kind, EvidenceTarget::Kind::kStep);
  EXPECT_EQ(above.evidence[0].rows[0][0], std::to_string(above.evidence[0].targets[0].step_id));
  EXPECT_NE(above.suggestion.find("num_workers"), std::string::npos);
  EXPECT_EQ(Evaluate(InputWait(30).input(), "data_loading").severity, Severity::kHigh);
}

TEST(DataLoadingRule, NotEvaluatedWithoutInputRanges) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {100, 100}, 1.0);
  Finding finding = Evaluate(b.input(), "data_loading");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("not evaluated: no input ranges"), std::string::npos);
}

TEST(DataLoadingRule, ThresholdOverride) {
  Thresholds thresholds = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(thresholds.Set("data_loading.step_share", 0.1, &error)) << error;
  EXPECT_EQ(Evaluate(InputWait(6).input(), "data_loading", thresholds).status, RuleStatus::kPassed);
}

// CUDA: in the steps, one stream busy 1000 - `host_wait` ns, waiting `host_wait` ns for the
// host. Over the whole run (start-up included) the stream mostly waited for the host.
HandBuiltProfiles DeviceHostWait(int64_t host_wait, uint64_t short_kernels = 0) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {200}, 0.5, 0);
  AnalysisSet& set = b.Set(0);
  set.idle_time.source = ActivitySource::kDevice;
  set.idle_time_in_steps.source = ActivitySource::kDevice;
  IdleTimeRow lane;
  lane.has_launches = true;
  lane.busy_ns = 1000 - host_wait;
  lane.host_wait_ns = host_wait;
  set.idle_time_in_steps.lanes.push_back(lane);
  IdleTimeRow whole_run = lane;
  whole_run.host_wait_ns += 9000;  // imports, CUDA initialisation, warm-up
  set.idle_time.lanes.push_back(whole_run);
  set.kernel_breakdown.has_launch_flows = true;
  set.kernel_breakdown.launches.launches = 10;
  set.kernel_breakdown.launches.short_kernels = short_kernels;
  return b;
}

TEST(HostBoundRule, DeviceWaitingForTheHost) {
  EXPECT_EQ(Evaluate(DeviceHostWait(90).input(), "host_bound").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(DeviceHostWait(100).input(), "host_bound").status, RuleStatus::kPassed);
  Finding above = Evaluate(DeviceHostWait(110).input(), "host_bound");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.severity, Severity::kMedium);
  EXPECT_EQ(above.evidence.size(), 2u);
}

TEST(HostBoundRule, ShortKernels) {
  EXPECT_EQ(Evaluate(DeviceHostWait(0, 5).input(), "host_bound").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(DeviceHostWait(0, 6).input(), "host_bound").status, RuleStatus::kTriggered);
}

// The H200 case: a device-bound loop whose start-up was spent waiting for the host.
TEST(HostBoundRule, StartUpOutsideTheStepsIsNotHostWait) {
  Finding finding = Evaluate(DeviceHostWait(30).input(), "host_bound");
  EXPECT_EQ(finding.status, RuleStatus::kPassed) << finding.detail;
  EXPECT_NE(finding.detail.find("3.0% of their time in the steps"), std::string::npos)
      << finding.detail;
}

TEST(HostBoundRule, WithoutStepsTheWholeRunIsJudged) {
  HandBuiltProfiles b = DeviceHostWait(30);
  b.Set(0).steps.steps.clear();
  Finding finding = Evaluate(b.input(), "host_bound");
  EXPECT_EQ(finding.status, RuleStatus::kTriggered) << finding.detail;
  EXPECT_EQ(finding.detail.find("in the steps"), std::string::npos) << finding.detail;
}

TEST(HostBoundRule, DeviceWithoutLaunchFlowsIsNotEvaluated) {
  HandBuiltProfiles b = DeviceHostWait(500);
  b.Set(0).idle_time_in_steps.lanes[0].has_launches = false;
  Finding finding = Evaluate(b.input(), "host_bound");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("launch"), std::string::npos);
}

// CPU-only: two steps of 1000 ns, each with `gap` ns outside operators; `short_self` ns of
// self time in aten::add_ (80 calls of `short_mean` ns), the rest in aten::mm.
HandBuiltProfiles CpuDispatch(int64_t gap, int64_t short_self, double short_mean = 5000) {
  HandBuiltProfiles b;
  b.Add("cpu job");
  b.AddSteps(0, {1000, 1000}, 1.0 - static_cast<double>(gap) / 1000.0);
  ProfileFacts& facts = b.Facts(0);
  const int64_t in_ops = 2000 - 2 * gap;
  facts.operators = {{"aten::mm", 2, in_ops - short_self, 1e6},
                     {"aten::add_", 80, short_self, short_mean}};
  facts.operator_self_ns = in_ops;
  facts.operator_count = 82;
  return b;
}

TEST(HostBoundRule, CpuShortOperatorsAndGapsAboveHalfTheStep) {
  // Gaps 10% of the steps, short operators 35%, 40%, 45%.
  EXPECT_EQ(Evaluate(CpuDispatch(100, 700).input(), "host_bound").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(CpuDispatch(100, 800).input(), "host_bound").status, RuleStatus::kPassed);
  Finding above = Evaluate(CpuDispatch(100, 900).input(), "host_bound");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.severity, Severity::kMedium);
  EXPECT_EQ(above.evidence.at(0).rows.at(0).at(0), "aten::add_");
  EXPECT_EQ(above.evidence.at(0).targets.at(0).kind, EvidenceTarget::Kind::kName);
  EXPECT_EQ(above.evidence.at(0).targets.at(0).name, "aten::add_");
  // Operators of 60 µs are not dispatch-bound: only the gaps count.
  EXPECT_EQ(Evaluate(CpuDispatch(100, 900, 60000).input(), "host_bound").status,
            RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(CpuDispatch(300, 1400).input(), "host_bound").severity, Severity::kHigh);
}

TEST(HostBoundRule, InputWaitIsNotAHostGap) {
  // Gaps 40% and short operators 20%: triggered, unless 10% of the gaps is input wait.
  EXPECT_EQ(Evaluate(CpuDispatch(400, 400).input(), "host_bound").status, RuleStatus::kTriggered);
  HandBuiltProfiles b = CpuDispatch(400, 400);
  // The step breakdown's input wait: the part of Free the step spent waiting for input.
  for (StepBreakdownRow& row : b.Set(0).step_breakdown.rows) row.input_wait_ns = 100;
  EXPECT_EQ(Evaluate(b.input(), "host_bound").status, RuleStatus::kPassed);
}

TEST(HostBoundRule, CpuWithoutOperatorsIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("markers only");
  b.AddSteps(0, {1000, 1000}, 0.5);
  Finding finding = Evaluate(b.input(), "host_bound");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("no framework operators"), std::string::npos);
}

// Twenty steps of 1000 ns, the last one `slow` ns.
HandBuiltProfiles OneSlowStep(int64_t slow, size_t index = 19) {
  std::vector<int64_t> durations(20, 1000);
  durations[index] = slow;
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, durations, 0.5);
  StepBreakdownRow& row = b.Set(0).step_breakdown.rows[index];
  row.free_ns = 500;  // the extra time is computing
  row.computing_ns = slow - 500;
  return b;
}

TEST(SlowStepsRule, OutlierAboveTwentyPercentOfTheMedian) {
  EXPECT_EQ(Evaluate(OneSlowStep(1100).input(), "slow_steps").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(OneSlowStep(1200).input(), "slow_steps").status, RuleStatus::kPassed);
  Finding above = Evaluate(OneSlowStep(1300).input(), "slow_steps");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  ASSERT_EQ(above.evidence.at(0).rows.size(), 1u);
  EXPECT_EQ(above.evidence[0].rows[0][0], "19");
  EXPECT_EQ(above.evidence[0].targets.at(0).step_id, 19u);
  // The slow step computes 800 ns instead of 500: computing is its cause.
  EXPECT_NE(above.evidence[0].rows[0][3].find("computing"), std::string::npos);
}

TEST(SlowStepsRule, OnlyTheFirstStepSlowIsWarmUp) {
  Finding finding = Evaluate(OneSlowStep(5000, 0).input(), "slow_steps");
  EXPECT_EQ(finding.status, RuleStatus::kTriggered);
  EXPECT_EQ(finding.severity, Severity::kLow);
  EXPECT_NE(finding.suggestion.find("warm-up"), std::string::npos);
}

TEST(SlowStepsRule, TooFewSteps) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {1000, 1000, 5000}, 0.5);
  Finding finding = Evaluate(b.input(), "slow_steps");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("fewer than 5 steps"), std::string::npos);
}

HandBuiltProfiles DeviceComputing(double share) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {1000, 1000}, share, 0);
  return b;
}

TEST(LowUtilisationRule, BelowHalfOfTheSteps) {
  EXPECT_EQ(Evaluate(DeviceComputing(0.6).input(), "low_utilisation").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(DeviceComputing(0.5).input(), "low_utilisation").status, RuleStatus::kPassed);
  Finding below = Evaluate(DeviceComputing(0.4).input(), "low_utilisation");
  EXPECT_EQ(below.status, RuleStatus::kTriggered);
  EXPECT_EQ(below.severity, Severity::kMedium);
  EXPECT_EQ(Evaluate(DeviceComputing(0.1).input(), "low_utilisation").severity, Severity::kHigh);
}

TEST(LowUtilisationRule, CpuOnlyRunIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("cpu job");
  b.AddSteps(0, {1000}, 0.1);
  EXPECT_EQ(Evaluate(b.input(), "low_utilisation").status, RuleStatus::kNotEvaluated);
}

// Steps of 1000 ns with `exposed` ns of communication not overlapped (of 300 ns).
HandBuiltProfiles ExposedCommunication(int64_t exposed) {
  HandBuiltProfiles b;
  b.Add("rank 0");
  b.AddSteps(0, {1000, 1000}, 0.5, 0);
  AnalysisSet& set = b.Set(0);
  set.communication.ops.emplace_back();
  for (StepBreakdownRow& row : set.step_breakdown.rows) {
    row.communication_ns = 300;
    row.communication_not_overlapped_ns = exposed;
  }
  b.Facts(0).collectives.push_back({"allreduce (nccl)", 4, 600, 4096});
  return b;
}

TEST(CommunicationOverlapRule, ExposedAboveTenPercent) {
  EXPECT_EQ(Evaluate(ExposedCommunication(50).input(), "communication_overlap").status,
            RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(ExposedCommunication(100).input(), "communication_overlap").status,
            RuleStatus::kPassed);
  Finding above = Evaluate(ExposedCommunication(150).input(), "communication_overlap");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  ASSERT_EQ(above.evidence.size(), 2u);
  EXPECT_EQ(above.evidence[1].rows.at(0).at(0), "allreduce (nccl)");
}

constexpr int64_t kMiB = int64_t{1} << 20;

// Two steps of 1000 ns, half of each exposed communication (the rule triggers), made of
// `per_step` all-reduces of `bytes` each in the step's second half (400 ns in all); the
// first `covered` ns of each all-reduce overlap compute.
HandBuiltProfiles Buckets(int64_t per_step, int64_t bytes, int64_t covered = 0) {
  HandBuiltProfiles b;
  b.Add("rank 0");
  b.AddSteps(0, {1000, 1000}, 0.5, 0);
  AnalysisSet& set = b.Set(0);
  for (StepBreakdownRow& row : set.step_breakdown.rows) {
    row.communication_ns = 500;
    row.communication_not_overlapped_ns = 500;
  }
  const int64_t length = 400 / per_step;
  for (int64_t step = 0; step < 2; ++step) {
    for (int64_t i = 0; i < per_step; ++i) {
      model::CommOp comm;
      comm.process = 0;
      comm.type = model::CommOpType::kAllReduce;
      CommOpTiming op;
      op.comm_op = static_cast<uint32_t>(set.communication.ops.size());
      op.name = "nccl_allreduce_" + std::to_string(step * per_step + i);
      op.group = "world";
      op.type = model::CommOpType::kAllReduce;
      op.step = step;
      op.time.start_ns = step * 1000 + 500 + i * length;
      op.end_ns = op.time.start_ns + length;
      op.bytes = bytes;
      set.communication.ops.push_back(comm);
      set.communication_analysis.ops.push_back(op);
      if (covered > 0) {
        set.overlap.scopes[0].computing.push_back({op.time.start_ns, op.time.start_ns + covered});
      }
    }
  }
  return b;
}

const EvidenceTable& Table(const Finding& finding, const std::string& title) {
  for (const EvidenceTable& table : finding.evidence) {
    if (table.title == title) return table;
  }
  ADD_FAILURE() << "no table " << title;
  static const EvidenceTable none;
  return none;
}

std::string BucketShape(const Finding& finding) {
  return Table(finding, "All-reduce buckets").rows.at(0).back();
}

TEST(CommunicationOverlapRule, NamesTheMostExposedCollectives) {
  Finding finding = Evaluate(Buckets(1, 8 * kMiB, 100).input(), "communication_overlap");
  ASSERT_EQ(finding.status, RuleStatus::kTriggered);
  const EvidenceTable& most = Table(finding, "Most exposed collectives");
  ASSERT_EQ(most.rows.size(), 2u);
  EXPECT_EQ(most.rows[0], (std::vector<std::string>{"nccl_allreduce_0", "world", "8.0 MiB", "0",
                                                    "0.000 ms", "0.000 ms", "75.0%"}));
  EXPECT_NE(finding.detail.find("most exposed: nccl_allreduce_0 (group world, 8.0 MiB, step 0)"),
            std::string::npos)
      << finding.detail;
}

TEST(CommunicationOverlapRule, ManySmallAllReducesGetLargerBuckets) {
  // 4 MiB: at the size threshold; 3 MiB below it; 3 per step: below the count threshold.
  EXPECT_EQ(BucketShape(Evaluate(Buckets(4, 4 * kMiB).input(), "communication_overlap")), "ok");
  Finding small = Evaluate(Buckets(4, 3 * kMiB).input(), "communication_overlap");
  EXPECT_EQ(BucketShape(small), "many small: raise bucket_cap_mb");
  EXPECT_NE(small.suggestion.find("raise DDP's bucket_cap_mb"), std::string::npos);
  Finding few = Evaluate(Buckets(3, 3 * kMiB).input(), "communication_overlap");
  EXPECT_EQ(BucketShape(few), "ok");
  EXPECT_EQ(few.suggestion.find("bucket_cap_mb (default"), std::string::npos) << few.suggestion;
}

TEST(CommunicationOverlapRule, OneLargeExposedAllReduceGetsSmallerBuckets) {
  // 100 MiB: at the size threshold; 101 MiB above it, wholly exposed.
  EXPECT_EQ(BucketShape(Evaluate(Buckets(1, 100 * kMiB).input(), "communication_overlap")), "ok");
  Finding large = Evaluate(Buckets(1, 101 * kMiB).input(), "communication_overlap");
  EXPECT_EQ(BucketShape(large), "one large, exposed: lower bucket_cap_mb");
  EXPECT_NE(large.suggestion.find("lower DDP's bucket_cap_mb"), std::string::npos);
  // Half of it under compute: at the exposed-share threshold; 60% under compute: below.
  EXPECT_EQ(BucketShape(Evaluate(Buckets(1, 101 * kMiB, 200).input(), "communication_overlap")),
            "ok");
  EXPECT_EQ(BucketShape(Evaluate(Buckets(1, 101 * kMiB, 240).input(), "communication_overlap")),
            "ok");
}

TEST(CommunicationOverlapRule, NoCommunicationIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {1000}, 0.5, 0);
  Finding finding = Evaluate(b.input(), "communication_overlap");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_EQ(finding.detail, "not evaluated: no communication operations");
}

}  // namespace
}  // namespace aiprof::analysis::advice
