// Per-kernel counters through the range profiler test double and the CUDA driver test double:
// metric selection → config → one kKernelMetrics record per kernel, in launch order, read at
// the window's end; contexts created later; dropped ranges; the insufficient-privileges path;
// contexts created and torn down while the window ends (for TSan).
#include "sources/cuda/kernel_metrics.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda/cuda_driver_test_double.h"
#include "cuda/cupti_test_double.h"
#include "cuda/range_profiler_test_double.h"
#include "cuda/recording_host.h"
#include "format/records_cuda.h"

namespace aiprof::cuda {
namespace {

using format::CudaMetricsStatus;
using format::CudaRecordKind;
using testing::EmittedRecord;

constexpr uint8_t Kind(CudaRecordKind kind) {
  return static_cast<uint8_t>(kind);
}

// Values the "GPU" measured: distinct per kernel and metric, so a record that lands on the
// wrong kernel or column shows.
double Measured(const std::string& kernel, const std::string& metric) {
  return static_cast<double>(kernel.size() * 10) + static_cast<double>(metric.size()) / 4.0;
}

class KernelMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    profiler_.set_values(Measured);
    context_ = driver_.AddDevice(0, /*primary_active=*/true);
  }
  void Create() {
    metrics_ =
        std::make_unique<KernelMetrics>(profiler_.api(), cupti_.api(), driver_.api(), host_.host(),
                                        [this](const std::string& line) { log_.push_back(line); });
  }
  MetricSelection Select(bool ai_core, const std::string& group, bool l2) {
    MetricSelection selection;
    std::string error;
    EXPECT_TRUE(SelectMetrics(ai_core, group, l2, &selection, &error)) << error;
    return selection;
  }
  std::vector<EmittedRecord> Of(CudaRecordKind kind) { return host_.OfKind(Kind(kind)); }
  std::vector<double> Values(const EmittedRecord& record) {
    const auto range = record.As<format::CudaMetricRange>(0);
    std::vector<double> values;
    for (uint32_t v = 0; v < range.value_count; ++v) {
      double value;
      std::memcpy(&value, reinterpret_cast<const uint8_t*>(&record.ext.at(1 + v / 2)) + (v % 2) * 8,
                  8);
      values.push_back(value);
    }
    return values;
  }

  testing::CuptiTestDouble cupti_;
  testing::CudaDriverTestDouble driver_{&cupti_};
  testing::RangeProfilerTestDouble profiler_;
  testing::RecordingHost host_;
  CUcontext context_ = nullptr;
  std::unique_ptr<KernelMetrics> metrics_;
  std::vector<std::string> log_;
};

TEST(MetricSelection, GroupPlusL2KeepsEachMetricOnceAndUnknownGroupsAreNamed) {
  MetricSelection selection;
  std::string error;
  ASSERT_TRUE(SelectMetrics(true, "MemoryL1", true, &selection, &error));
  EXPECT_EQ(selection.label, "MemoryL1+L2Cache");
  EXPECT_EQ(selection.columns.size(), 3u + 3u);
  ASSERT_TRUE(SelectMetrics(false, "", true, &selection, &error));
  EXPECT_EQ(selection.label, "L2Cache");
  ASSERT_TRUE(SelectMetrics(true, "L2Cache", true, &selection, &error));
  EXPECT_EQ(selection.label, "L2Cache") << "--l2 adds nothing to the L2Cache group";
  ASSERT_TRUE(SelectMetrics(true, "", false, &selection, &error));
  EXPECT_EQ(selection.label, "PipeUtilization") << "msprof's default group";
  EXPECT_FALSE(SelectMetrics(true, "Bogus", false, &selection, &error));
  EXPECT_NE(error.find("ResourceConflictRatio"), std::string::npos) << error;
}

TEST_F(KernelMetricsTest, EachKernelGetsOneRecordWithItsValuesInLaunchOrder) {
  Create();
  const MetricSelection selection = Select(true, "PipeUtilization", true);
  ASSERT_TRUE(metrics_->Start(selection));
  EXPECT_TRUE(profiler_.started(context_));
  EXPECT_TRUE(profiler_.auto_range_kernel_replay());
  std::vector<std::string> expected_metrics;
  for (const MetricColumn& column : selection.columns)
    expected_metrics.push_back(column.cupti_metric);
  EXPECT_EQ(profiler_.configured_metrics(), expected_metrics);

  profiler_.LaunchKernel(context_, "_Z5scalePffi");
  profiler_.LaunchKernel(context_, "_Z6reducePKfPfi");
  profiler_.LaunchKernel(context_, "_Z3addPKfS0_Pfi");
  EXPECT_TRUE(Of(CudaRecordKind::kKernelMetrics).empty()) << "read once, at the window's end";
  metrics_->Stop();
  EXPECT_FALSE(profiler_.started(context_));
  EXPECT_EQ(profiler_.enabled_objects(), 0) << "Stop disables the range profiler";
  EXPECT_EQ(profiler_.host_objects(), 0);

  const auto records = Of(CudaRecordKind::kKernelMetrics);
  ASSERT_EQ(records.size(), 3u);
  const char* names[] = {"_Z5scalePffi", "_Z6reducePKfPfi", "_Z3addPKfS0_Pfi"};
  for (size_t i = 0; i < records.size(); ++i) {
    const auto range = records[i].As<format::CudaMetricRange>(0);
    EXPECT_EQ(range.range_index, i);
    EXPECT_EQ(host_.String(records[i].header.arg), names[i]);
    EXPECT_EQ(records[i].header.aux, 0);
    ASSERT_EQ(range.value_count, selection.columns.size());
    const std::vector<double> values = Values(records[i]);
    for (size_t m = 0; m < values.size(); ++m) {
      EXPECT_DOUBLE_EQ(values[m], Measured(names[i], selection.columns[m].cupti_metric));
    }
    const std::string set = host_.String(range.metric_set);
    EXPECT_EQ(set.rfind("sm_throughput(%)=sm__throughput.avg.pct_of_peak_sustained_elapsed;", 0),
              0u)
        << set;
    EXPECT_NE(set.find("l2_hit_rate(%)=lts__t_sector_hit_rate.pct"), std::string::npos) << set;
  }

  // The data and stderr say that replay distorts timing.
  const auto status = Of(CudaRecordKind::kMetricsStatus);
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].header.aux, static_cast<uint16_t>(CudaMetricsStatus::kCollecting));
  const std::string message = host_.String(status[0].header.arg);
  EXPECT_NE(message.find("PipeUtilization+L2Cache"), std::string::npos) << message;
  EXPECT_NE(message.find("GH100"), std::string::npos) << message;
  EXPECT_NE(message.find("distorted"), std::string::npos) << message;
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0], message);
}

TEST_F(KernelMetricsTest, ContextsCreatedAfterStartAreProfiledAndCollectedWhenDestroyed) {
  const CUcontext later = driver_.AddDevice(1, /*primary_active=*/false);
  Create();
  ASSERT_TRUE(metrics_->Start(Select(false, "", true)));
  EXPECT_FALSE(profiler_.started(later));
  profiler_.AnnounceContextCreated(later);
  EXPECT_TRUE(profiler_.started(later));
  EXPECT_EQ(metrics_->active_sessions(), 2u);
  profiler_.LaunchKernel(later, "_Z4copyPfS_");
  profiler_.AnnounceContextDestroying(later);
  EXPECT_EQ(metrics_->active_sessions(), 1u);
  const auto records = Of(CudaRecordKind::kKernelMetrics);
  ASSERT_EQ(records.size(), 1u) << "read before the context went away";
  EXPECT_EQ(records[0].header.aux, 1) << "device of the new context";
  metrics_->Stop();
}

TEST_F(KernelMetricsTest, StartedInsideCuInitTheProfilerIsInitializedAtTheFirstContext) {
  Create();
  profiler_.set_inside_cuinit(true);
  ASSERT_TRUE(metrics_->Start(Select(true, "PipeUtilization", false),
                              /*existing_contexts=*/false));
  EXPECT_EQ(profiler_.initialize_calls(), 0) << "CUPTI refuses it inside cuInit";
  profiler_.set_inside_cuinit(false);
  profiler_.AnnounceContextCreated(context_);
  EXPECT_EQ(profiler_.initialize_calls(), 1);
  EXPECT_TRUE(profiler_.started(context_));
  profiler_.LaunchKernel(context_, "_Z5scalePffi");
  metrics_->Stop();
  EXPECT_EQ(Of(CudaRecordKind::kKernelMetrics).size(), 1u);
  const auto status = Of(CudaRecordKind::kMetricsStatus);
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].header.aux, static_cast<uint16_t>(CudaMetricsStatus::kCollecting));
}

TEST_F(KernelMetricsTest, ShutdownReadsTheWindowThenDeinitializesTheProfilerForGood) {
  Create();
  ASSERT_TRUE(metrics_->Start(Select(true, "PipeUtilization", false)));
  EXPECT_EQ(profiler_.initialized(), 1);
  profiler_.LaunchKernel(context_, "_Z5scalePffi");
  metrics_->Shutdown();
  EXPECT_EQ(Of(CudaRecordKind::kKernelMetrics).size(), 1u) << "the window is read first";
  EXPECT_FALSE(profiler_.started(context_));
  EXPECT_EQ(profiler_.enabled_objects(), 0);
  EXPECT_EQ(profiler_.initialized(), 0) << "cuptiProfilerDeInitialize matched the Initialize";
  metrics_->Shutdown();
  EXPECT_EQ(profiler_.initialized(), 0);
  EXPECT_FALSE(metrics_->Start(Select(true, "PipeUtilization", false)))
      << "no profiler after the process's shutdown";
}

TEST_F(KernelMetricsTest, KernelsBeyondTheWindowsImageAreCountedAsDropsAndReported) {
  Create();
  ASSERT_TRUE(metrics_->Start(Select(false, "", true)));
  for (size_t i = 0; i < KernelMetrics::kMaxRangesPerWindow + 3; ++i) {
    profiler_.LaunchKernel(context_, "_Z1kv");
  }
  metrics_->Stop();
  EXPECT_EQ(metrics_->ranges_emitted(), KernelMetrics::kMaxRangesPerWindow);
  EXPECT_EQ(metrics_->ranges_dropped(), 3u);
  const auto status = Of(CudaRecordKind::kMetricsStatus);
  ASSERT_EQ(status.size(), 2u);
  EXPECT_NE(host_.String(status[1].header.arg).find("3 kernels on GPU 0 got no counters"),
            std::string::npos)
      << host_.String(status[1].header.arg);
  const auto drops = host_.OfKind(static_cast<uint8_t>(format::RecordKind::kDrops));
  ASSERT_FALSE(drops.empty());
  EXPECT_EQ(drops.back().header.arg, static_cast<uint32_t>(CudaRecordKind::kMetricRangesDropped));
  EXPECT_EQ(drops.back().As<format::DropCount>(0).count, 3u);
}

TEST_F(KernelMetricsTest, InsufficientPrivilegesSaysHowToAllowCountersAndCollectsNothing) {
  profiler_.FailWith("cuptiProfilerGetCounterAvailability", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  Create();
  metrics_->Start(Select(true, "Memory", false));
  profiler_.LaunchKernel(context_, "_Z5scalePffi");
  metrics_->Stop();
  EXPECT_TRUE(Of(CudaRecordKind::kKernelMetrics).empty());
  EXPECT_EQ(profiler_.enabled_objects(), 0);
  EXPECT_EQ(profiler_.host_objects(), 0) << "what was set up is released";
  const auto status = Of(CudaRecordKind::kMetricsStatus);
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].header.aux, static_cast<uint16_t>(CudaMetricsStatus::kPermissionDenied));
  const std::string message = host_.String(status[0].header.arg);
  EXPECT_NE(message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << message;
  EXPECT_NE(message.find("root"), std::string::npos) << message;
  EXPECT_NE(message.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos) << message;
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0], message);
}

TEST_F(KernelMetricsTest, UnsupportedDeviceIsNamed) {
  profiler_.FailWith("cuptiRangeProfilerEnable", CUPTI_ERROR_NOT_SUPPORTED);
  Create();
  metrics_->Start(Select(true, "PipeUtilization", false));
  metrics_->Stop();
  const auto status = Of(CudaRecordKind::kMetricsStatus);
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].header.aux, static_cast<uint16_t>(CudaMetricsStatus::kUnsupportedDevice));
  EXPECT_NE(host_.String(status[0].header.arg).find("GPU 0 (GH100)"), std::string::npos);
}

// Application threads create, use and destroy contexts while the window ends on another
// thread: every kernel launched on a live session is read exactly once, whichever side reads.
TEST_F(KernelMetricsTest, ContextsComingAndGoingWhileTheWindowEndsAreReadOnce) {
  std::vector<CUcontext> contexts;
  for (int device = 1; device <= 4; ++device) contexts.push_back(driver_.AddDevice(device, false));
  Create();
  ASSERT_TRUE(metrics_->Start(Select(false, "", true)));
  std::atomic<int> launched{0};
  std::vector<std::thread> threads;
  for (CUcontext context : contexts) {
    threads.emplace_back([&, context] {
      profiler_.AnnounceContextCreated(context);
      for (int i = 0; i < 50; ++i) {
        if (profiler_.started(context)) {
          profiler_.LaunchKernel(context, "_Z1kv");
          launched.fetch_add(1);
        }
      }
      profiler_.AnnounceContextDestroying(context);
    });
  }
  metrics_->Stop();
  for (std::thread& thread : threads) thread.join();
  // A kernel counted as launched found its session started; it is read by the destroy
  // callback or by Stop, never both, unless Stop came first and closed the object (then
  // the launch found no started object and was not counted).
  EXPECT_LE(metrics_->ranges_emitted(), static_cast<uint64_t>(launched.load()));
  EXPECT_EQ(profiler_.enabled_objects(), 0);
  EXPECT_EQ(profiler_.host_objects(), 0);
}

}  // namespace
}  // namespace aiprof::cuda
