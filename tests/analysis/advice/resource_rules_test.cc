// The advice rules over ranks, memory, operators, synchronisation and kernels, each at,
// below and above its threshold; the engine's ranking and the --config file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "analysis/advice/advice_test_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

using testing::Evaluate;
using testing::HandBuiltProfiles;

// Two ranks computing 975 and `other` ns per 2000 ns step.
HandBuiltProfiles TwoRanks(int64_t other) {
  HandBuiltProfiles b;
  for (int32_t rank = 0; rank < 2; ++rank) {
    ProfileInput& profile = b.Add("rank " + std::to_string(rank));
    profile.rank = rank;
    b.AddSteps(static_cast<size_t>(rank), {2000, 2000, 2000}, 0.5);
    for (StepBreakdownRow& row : b.Set(static_cast<size_t>(rank)).step_breakdown.rows) {
      row.rank = rank;
      row.computing_ns = rank == 0 ? 975 : other;
      row.free_ns = 2000 - row.computing_ns;
    }
  }
  return b;
}

TEST(SlowRankRule, SpreadAboveFivePercentNamesTheRank) {
  EXPECT_EQ(Evaluate(TwoRanks(1000).input(), "slow_rank").status, RuleStatus::kPassed);
  // 975 and 1025: (max − min) / mean = 50 / 1000 = 0.05, at the threshold. Free spreads
  // the same way (1025 vs 975), still at the threshold.
  EXPECT_EQ(Evaluate(TwoRanks(1025).input(), "slow_rank").status, RuleStatus::kPassed);
  Finding above = Evaluate(TwoRanks(1100).input(), "slow_rank");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.detail.rfind("rank 1 is the slow rank: computing", 0), 0u) << above.detail;
  EXPECT_EQ(above.severity, Severity::kMedium);
  Finding far = Evaluate(TwoRanks(2000).input(), "slow_rank");
  EXPECT_EQ(far.severity, Severity::kHigh);
}

TEST(SlowRankRule, OneRankIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {1000, 1000}, 0.5);
  Finding finding = Evaluate(b.input(), "slow_rank");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("several ranks"), std::string::npos);
}

// Two ranks each moving 1 MB in 4 all-reduces over an intra-host link: rank 0 in 1000 µs of
// transit (1 GB/s), rank 1 in `transit_us`; the wait was derived from the peers or not.
HandBuiltProfiles TwoLinks(int64_t transit_us, WaitSource source = WaitSource::kPeers) {
  HandBuiltProfiles b;
  for (int32_t rank = 0; rank < 2; ++rank) {
    ProfileInput& profile = b.Add("rank " + std::to_string(rank));
    profile.rank = rank;
    for (int i = 0; i < 4; ++i) {
      CommOpTiming op;
      op.rank = rank;
      op.transport = TransportType::kIntraHost;
      op.bytes = 250'000;
      op.wait_source = source;
      op.time.transit_ns = (rank == 0 ? 1000 : transit_us) * 1000 / 4;
      b.Set(static_cast<size_t>(rank)).communication_analysis.ops.push_back(op);
    }
  }
  return b;
}

TEST(SlowLinkRule, SpreadAboveFivePercentNamesTheRanksLink) {
  EXPECT_EQ(Evaluate(TwoLinks(1000).input(), "slow_link").status, RuleStatus::kPassed);
  // 1 GB/s and 1/1.05 GB/s: spread 0.0476 / 0.9762 = 0.0488, just below the threshold.
  EXPECT_EQ(Evaluate(TwoLinks(1050).input(), "slow_link").status, RuleStatus::kPassed);
  Finding above = Evaluate(TwoLinks(1200).input(), "slow_link");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.detail.rfind("rank 1's INTRA_HOST link is slow: 0.833 GB/s", 0), 0u)
      << above.detail;
  EXPECT_EQ(above.severity, Severity::kMedium);
  EXPECT_EQ(Evaluate(TwoLinks(2000).input(), "slow_link").severity, Severity::kHigh);
}

TEST(SlowLinkRule, TransitThatStillHoldsTheWaitOrOneRankIsNotEvaluated) {
  Finding unmeasured = Evaluate(TwoLinks(2000, WaitSource::kNotMeasured).input(), "slow_link");
  EXPECT_EQ(unmeasured.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(unmeasured.detail.find("wait"), std::string::npos) << unmeasured.detail;
  HandBuiltProfiles one = TwoLinks(2000);
  one.Set(1).communication_analysis.ops.clear();
  EXPECT_EQ(Evaluate(one.input(), "slow_link").status, RuleStatus::kNotEvaluated);
  HandBuiltProfiles none;
  none.Add("job");
  EXPECT_EQ(Evaluate(none.input(), "slow_link").status, RuleStatus::kNotEvaluated);
}

// A device pool ("CUDA:0") with the capacity the memory analysis read (0: not recorded).
HandBuiltProfiles Pool(int64_t allocated, int64_t reserved, int64_t recorded_capacity = 0) {
  HandBuiltProfiles b;
  b.Add("job");
  MemoryPool pool;
  pool.name = "CUDA:0";
  pool.device_index = 0;
  pool.capacity = recorded_capacity;
  pool.capacity_source = recorded_capacity > 0 ? "CUDA device record" : "";
  pool.peak_allocated = allocated;
  pool.peak_reserved = reserved;
  b.Set(0).memory.pools.push_back(pool);
  return b;
}

TEST(MemoryRule, FragmentationWhenReservedFarAboveAllocated) {
  constexpr int64_t kGiB = int64_t{1} << 30;
  EXPECT_EQ(Evaluate(Pool(kGiB, kGiB + kGiB / 4).input(), "memory").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(Pool(kGiB, kGiB + kGiB / 2).input(), "memory").status,
            RuleStatus::kPassed);  // 1.5×: at the threshold
  Finding above = Evaluate(Pool(kGiB, 2 * kGiB).input(), "memory");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.evidence.at(0).rows.at(0).back(), "fragmented");
  // Small pools: the unused bytes are below 256 MiB.
  EXPECT_EQ(Evaluate(Pool(1 << 20, 4 << 20).input(), "memory").status, RuleStatus::kPassed);
}

TEST(MemoryRule, NearCapacityNeedsTheCapacity) {
  constexpr int64_t kGiB = int64_t{1} << 30;
  Finding unknown = Evaluate(Pool(9 * kGiB, -1).input(), "memory");
  EXPECT_EQ(unknown.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(unknown.detail.find("memory.capacity_bytes"), std::string::npos);
  Thresholds thresholds = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(thresholds.Set("memory.capacity_bytes", 10.0 * kGiB, &error));
  EXPECT_EQ(Evaluate(Pool(8 * kGiB, -1).input(), "memory", thresholds).status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(Pool(9 * kGiB, -1).input(), "memory", thresholds).status,
            RuleStatus::kPassed);  // 0.9: at the threshold
  Finding above = Evaluate(Pool(9 * kGiB + kGiB / 2, -1).input(), "memory", thresholds);
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.severity, Severity::kHigh);
}

TEST(MemoryRule, NearCapacityFromTheRecordedCapacity) {
  constexpr int64_t kGiB = int64_t{1} << 30;
  EXPECT_EQ(Evaluate(Pool(8 * kGiB, -1, 10 * kGiB).input(), "memory").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(Pool(9 * kGiB, -1, 10 * kGiB).input(), "memory").status,
            RuleStatus::kPassed);  // 0.9: at the threshold
  Finding above = Evaluate(Pool(9 * kGiB + kGiB / 2, -1, 10 * kGiB).input(), "memory");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_NE(above.detail.find("CUDA device record"), std::string::npos) << above.detail;
  EXPECT_EQ(above.evidence.at(0).rows.at(0).at(4), "10.00 GiB (CUDA device record)");
  // memory.capacity_bytes overrides the recorded capacity: 20 GiB makes the same peak fine.
  Thresholds thresholds = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(thresholds.Set("memory.capacity_bytes", 20.0 * kGiB, &error));
  EXPECT_EQ(Evaluate(Pool(9 * kGiB + kGiB / 2, -1, 10 * kGiB).input(), "memory", thresholds).status,
            RuleStatus::kPassed);
}

TEST(MemoryRule, HostPoolJudgedAgainstMemTotalOnly) {
  constexpr int64_t kGiB = int64_t{1} << 30;
  HandBuiltProfiles b;
  b.Add("job");
  MemoryPool pool;
  pool.name = "CPU";
  pool.peak_allocated = 30 * kGiB;
  b.Set(0).memory.pools.push_back(pool);
  // A device capacity from --config does not apply to host memory: still unknown.
  Thresholds thresholds = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(thresholds.Set("memory.capacity_bytes", 10.0 * kGiB, &error));
  EXPECT_EQ(Evaluate(b.input(), "memory", thresholds).status, RuleStatus::kNotEvaluated);
  b.Set(0).memory.pools[0].capacity = 32 * kGiB;
  b.Set(0).memory.pools[0].capacity_source = "host MemTotal";
  Finding near = Evaluate(b.input(), "memory");
  EXPECT_EQ(near.status, RuleStatus::kTriggered);
  EXPECT_NE(near.detail.find("host MemTotal"), std::string::npos) << near.detail;
  b.Set(0).memory.pools[0].capacity = 64 * kGiB;
  EXPECT_EQ(Evaluate(b.input(), "memory").status, RuleStatus::kPassed);
}

TEST(MemoryRule, NoPoolsIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("job");
  EXPECT_EQ(Evaluate(b.input(), "memory").status, RuleStatus::kNotEvaluated);
}

// Operator self times: `top` ns for aten::mm and 100 − top for aten::relu (long ones).
HandBuiltProfiles Operators(int64_t top) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {1000}, 0.5);
  ProfileFacts& facts = b.Facts(0);
  facts.operators = {{"aten::mm", 1, top, 1e6}, {"aten::relu", 1, 1000 - top, 1e6}};
  facts.operator_self_ns = 1000;
  facts.operator_count = 2;
  return b;
}

TEST(DominantOperatorsRule, TopShareAboveThirtyPercent) {
  // The facts list operators largest first; at 300 of 1000 aten::relu is the top one.
  HandBuiltProfiles below = Operators(250);
  std::swap(below.Facts(0).operators[0], below.Facts(0).operators[1]);
  below.Facts(0).operators[0].self_ns = 250;
  below.Facts(0).operators[1].self_ns = 250;
  below.Facts(0).operators.push_back({"aten::add", 1, 250, 1e6});
  below.Facts(0).operators.push_back({"aten::sub", 1, 250, 1e6});
  EXPECT_EQ(Evaluate(below.input(), "dominant_operators").status, RuleStatus::kPassed);
  HandBuiltProfiles at = Operators(300);
  at.Facts(0).operators = {{"aten::mm", 1, 300, 1e6},
                           {"aten::relu", 1, 300, 1e6},
                           {"aten::add", 1, 200, 1e6},
                           {"aten::sub", 1, 200, 1e6}};
  EXPECT_EQ(Evaluate(at.input(), "dominant_operators").status, RuleStatus::kPassed);
  HandBuiltProfiles above = Operators(700);
  Finding finding = Evaluate(above.input(), "dominant_operators");
  EXPECT_EQ(finding.status, RuleStatus::kTriggered);
  EXPECT_EQ(finding.severity, Severity::kMedium);  // 70% ≥ 60%
  EXPECT_EQ(finding.evidence.at(0).rows.at(0).at(0), "aten::mm");
}

TEST(DominantOperatorsRule, ShortFrequentOperatorsAreFusionCandidates) {
  HandBuiltProfiles b;
  b.Add("job");
  b.AddSteps(0, {1000, 1000}, 0.5);
  ProfileFacts& facts = b.Facts(0);
  facts.operators = {{"aten::mm", 2, 250, 1e6},
                     {"aten::conv", 2, 250, 1e6},
                     {"aten::bmm", 2, 250, 1e6},
                     {"aten::gelu", 2, 140, 1e6},
                     {"aten::add_", 40, 110, 5e3}};  // 20 calls per step, 5 µs each: 11%
  facts.operator_self_ns = 1000;
  Finding finding = Evaluate(b.input(), "dominant_operators");
  EXPECT_EQ(finding.status, RuleStatus::kTriggered);
  EXPECT_EQ(finding.severity, Severity::kLow);
  ASSERT_EQ(finding.evidence.size(), 2u);
  EXPECT_EQ(finding.evidence[1].rows.at(0).at(0), "aten::add_");
  facts.operators.back().self_ns = 100;  // 10%: at the threshold
  facts.operators[3].self_ns = 150;
  EXPECT_EQ(Evaluate(b.input(), "dominant_operators").status, RuleStatus::kPassed);
}

// Two steps of 1000 ns, a cudaDeviceSynchronize in each that blocks `blocked_ns` and leaves
// the device idle `idle_after_ns` after it returns.
HandBuiltProfiles Sync(int64_t idle_after_ns, int64_t blocked_ns = 400) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {1000, 1000}, 0.5, 0);
  ProfileFacts& facts = b.Facts(0);
  facts.has_runtime_calls = true;
  facts.has_device_activity = true;
  SyncCall call{"cudaDeviceSynchronize", 2, 2 * blocked_ns, blocked_ns, {}};
  for (int64_t step_begin : {0, 1000}) {
    call.waits.push_back({step_begin + 100, step_begin + 100 + blocked_ns, idle_after_ns});
  }
  facts.sync_calls.push_back(call);
  return b;
}

TEST(HostSyncRule, DeviceIdleAfterTheCallsAboveFivePercent) {
  EXPECT_EQ(Evaluate(Sync(25).input(), "host_sync").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(Sync(50).input(), "host_sync").status, RuleStatus::kPassed);
  Finding above = Evaluate(Sync(75).input(), "host_sync");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.evidence.at(0).rows.at(0).at(0), "cudaDeviceSynchronize");
  EXPECT_NE(above.detail.find("7.5%"), std::string::npos) << above.detail;
  EXPECT_EQ(Evaluate(Sync(250).input(), "host_sync").severity, Severity::kHigh);
}

// The H200 case: the host blocks most of each step while the device drains a full queue,
// and the device barely idles afterwards. Removing the sync would not shorten the step.
TEST(HostSyncRule, BlockingWhileTheDeviceIsBusyIsNoStall) {
  Finding finding = Evaluate(Sync(/*idle_after_ns=*/10, /*blocked_ns=*/700).input(), "host_sync");
  EXPECT_EQ(finding.status, RuleStatus::kPassed) << finding.detail;
  EXPECT_NE(finding.detail.find("blocked 70.0%"), std::string::npos) << finding.detail;
}

TEST(HostSyncRule, OnlyCallsInsideTheStepsCount) {
  HandBuiltProfiles b = Sync(25);
  // A warm-up synchronisation before the first step, with a long idle after it.
  b.Facts(0).sync_calls[0].waits.insert(b.Facts(0).sync_calls[0].waits.begin(),
                                        SyncWait{-5000, -4000, 3000});
  EXPECT_EQ(Evaluate(b.input(), "host_sync").status, RuleStatus::kPassed);
}

TEST(HostSyncRule, CpuOnlyOrNoRuntimeCallsIsNotEvaluated) {
  HandBuiltProfiles cpu;
  cpu.Add("cpu job");
  cpu.AddSteps(0, {1000}, 0.5);
  EXPECT_EQ(Evaluate(cpu.input(), "host_sync").status, RuleStatus::kNotEvaluated);
  HandBuiltProfiles gpu;
  gpu.Add("gpu job");
  gpu.AddSteps(0, {1000}, 0.5, 0);
  Finding finding = Evaluate(gpu.input(), "host_sync");
  EXPECT_EQ(finding.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(finding.detail.find("runtime API"), std::string::npos);
}

// Kernel time 1000 ns, `small` ns of it in a kernel with 0.5 blocks per SM.
HandBuiltProfiles Kernels(int64_t small, double occupancy = 60) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {2000}, 0.5, 0);
  ProfileFacts& facts = b.Facts(0);
  facts.kernels = {testing::Shape("big_gemm", 10, 1000 - small, 8.0, 60),
                   testing::Shape("tiny_kernel", 10, small, 0.5, occupancy)};
  facts.kernel_total_ns = 1000;
  return b;
}

TEST(KernelEfficiencyRule, SmallGridsAboveTenPercentOfKernelTime) {
  EXPECT_EQ(Evaluate(Kernels(50).input(), "kernel_efficiency").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(Kernels(100).input(), "kernel_efficiency").status, RuleStatus::kPassed);
  Finding above = Evaluate(Kernels(150).input(), "kernel_efficiency");
  EXPECT_EQ(above.status, RuleStatus::kTriggered);
  EXPECT_EQ(above.evidence.at(0).rows.at(0).at(0), "tiny_kernel");
}

TEST(KernelEfficiencyRule, LowOccupancy) {
  HandBuiltProfiles b = Kernels(0);
  b.Facts(0).kernels[0].occupancy_pct = 20;  // below 25%, all of the kernel time
  Finding finding = Evaluate(b.input(), "kernel_efficiency");
  EXPECT_EQ(finding.status, RuleStatus::kTriggered);
  EXPECT_EQ(finding.severity, Severity::kHigh);
}

TEST(KernelEfficiencyRule, NoKernelShapesIsNotEvaluated) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {1000}, 0.5, 0);
  EXPECT_EQ(Evaluate(b.input(), "kernel_efficiency").status, RuleStatus::kNotEvaluated);
}

TEST(AdviceEngine, RanksTriggeredBySeverityThenImpactThenTheRest) {
  HandBuiltProfiles b = Kernels(150);  // kernel_efficiency: medium
  // host_sync: high (the device idles half of the step after the call)
  b.Facts(0).sync_calls.push_back({"cudaStreamSynchronize", 1, 1000, 1000, {{0, 1000, 1000}}});
  b.Facts(0).has_runtime_calls = true;
  b.Facts(0).has_device_activity = true;
  AdviceReport report = RunAdvice(b.input(), Thresholds::Defaults());
  ASSERT_EQ(report.findings.size(), AllRules().size());
  ASSERT_GE(report.triggered(), 2u);
  EXPECT_EQ(report.findings[0].rule, "host_sync");
  EXPECT_EQ(report.findings[0].severity, Severity::kHigh);
  for (size_t i = 1; i < report.findings.size(); ++i) {
    EXPECT_LE(report.findings[i - 1].status, report.findings[i].status);
  }
  for (const Finding& finding : report.findings) {
    EXPECT_FALSE(finding.detail.empty()) << finding.rule;
    EXPECT_FALSE(finding.thresholds.empty()) << finding.rule;
    if (finding.status == RuleStatus::kTriggered) {
      EXPECT_FALSE(finding.suggestion.empty()) << finding.rule;
    }
    if (finding.status == RuleStatus::kNotEvaluated) {
      EXPECT_EQ(finding.detail.rfind("not evaluated: ", 0), 0u) << finding.rule;
    }
  }
}

TEST(AdviceThresholds, EveryThresholdHasASource) {
  const Thresholds thresholds = Thresholds::Defaults();
  for (const auto& [key, spec] : thresholds.specs()) {
    EXPECT_FALSE(spec.source.empty()) << key;
    EXPECT_FALSE(spec.description.empty()) << key;
  }
}

TEST(AdviceThresholds, ConfigFileOverridesAndRejectsUnknownKeys) {
  const std::string path = ::testing::TempDir() + "advice_thresholds.json";
  {
    std::ofstream out(path);
    out << R"({"data_loading": {"step_share": 0.2}, "slow_rank.spread": 0.1})";
  }
  Thresholds thresholds = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(thresholds.LoadOverrides(path, &error)) << error;
  EXPECT_DOUBLE_EQ(thresholds.Get("data_loading.step_share"), 0.2);
  EXPECT_DOUBLE_EQ(thresholds.Get("slow_rank.spread"), 0.1);
  {
    std::ofstream out(path);
    out << R"({"data_loading": {"step_shar": 0.2}})";
  }
  EXPECT_FALSE(thresholds.LoadOverrides(path, &error));
  EXPECT_NE(error.find("unknown threshold 'data_loading.step_shar'"), std::string::npos) << error;
  EXPECT_NE(error.find("data_loading.step_share"), std::string::npos) << error;
  {
    std::ofstream out(path);
    out << R"({"data_loading": {"step_share": "high"}})";
  }
  EXPECT_FALSE(thresholds.LoadOverrides(path, &error));
  EXPECT_NE(error.find("must be a number"), std::string::npos) << error;
  {
    std::ofstream out(path);
    out << "{not json";
  }
  EXPECT_FALSE(thresholds.LoadOverrides(path, &error));
  EXPECT_NE(error.find("not valid JSON"), std::string::npos) << error;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace aiprof::analysis::advice
