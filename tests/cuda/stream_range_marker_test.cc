// mstx ranges given a stream, through the CUDA driver test double and the CUPTI test double:
// the events recorded at start and end come back as CUDA_EVENT records with device time,
// tied to the range by CUSTOM2 external correlations; nothing waits on the GPU.
#include "sources/cuda/stream_range_marker.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "cuda/cuda_driver_test_double.h"
#include "cuda/cupti_test_double.h"
#include "cuda/recording_host.h"
#include "format/records_cuda.h"
#include "sources/cuda/cuda_collector.h"

namespace aiprof::cuda {
namespace {

using format::CudaRecordKind;

class StreamRangeMarkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    driver_.set_app_tid(static_cast<uint32_t>(syscall(SYS_gettid)));
    context_ = driver_.AddDevice(0, true);
    stream_ = driver_.AddStream(context_, 21);
    collector_ = std::make_unique<CudaCollector>(cupti_.api(), host_.host(), CollectorOptions{});
    std::string error, warnings;
    ASSERT_TRUE(collector_->Attach(&error)) << error;
    ASSERT_TRUE(collector_->Start(ActivitySelection{.driver_api = false, .device_markers = true},
                                  &error, &warnings))
        << error;
    EXPECT_EQ(warnings, "");
    marker_.set_enabled(true);
  }
  void TearDown() override { collector_->Stop(); }

  testing::CuptiTestDouble cupti_;
  testing::CudaDriverTestDouble driver_{&cupti_};
  testing::RecordingHost host_;
  std::unique_ptr<CudaCollector> collector_;
  StreamRangeMarker marker_{driver_.api(), cupti_.api()};
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

TEST_F(StreamRangeMarkerTest, DeviceMarkersEnableCudaEventsWithDeviceTimestampsAndDriverRecords) {
  EXPECT_TRUE(cupti_.enabled(CUPTI_ACTIVITY_KIND_CUDA_EVENT));
  EXPECT_TRUE(cupti_.cuda_event_device_timestamps());
  EXPECT_TRUE(cupti_.enabled(CUPTI_ACTIVITY_KIND_DRIVER))
      << "the external ids ride on the cuEventRecord API records";
}

TEST_F(StreamRangeMarkerTest, StartAndEndEventsCarryDeviceTimeAndTheRangeId) {
  const uint64_t now = cupti_.cupti_now();
  driver_.SetDeviceTime(stream_, now - 900'000);
  ASSERT_TRUE(marker_.Start(41, stream_));
  const uint32_t start_correlation = driver_.last_correlation();
  driver_.SetDeviceTime(stream_, now - 100'000);
  ASSERT_TRUE(marker_.End(41));
  const uint32_t end_correlation = driver_.last_correlation();
  EXPECT_EQ(cupti_.external_depth(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2), 0u) << "popped";
  collector_->Flush();

  std::map<uint32_t, uint64_t> marks;  // correlation → external id
  for (const auto& record :
       host_.OfKind(static_cast<uint8_t>(CudaRecordKind::kExternalCorrelation))) {
    const auto link = record.As<format::CudaExternalCorrelation>(0);
    if (link.external_kind == format::kCudaExternalDeviceMarker) {
      marks[link.correlation] = link.external_id;
    }
  }
  EXPECT_EQ(marks[start_correlation], StreamRangeMarker::StartId(41));
  EXPECT_EQ(marks[end_correlation], StreamRangeMarker::EndId(41));

  const auto events = host_.OfKind(static_cast<uint8_t>(CudaRecordKind::kCudaEvent));
  ASSERT_EQ(events.size(), 2u);
  const auto start = events[0].As<format::CudaEventRecord>(0);
  const auto end = events[1].As<format::CudaEventRecord>(0);
  EXPECT_EQ(start.correlation, start_correlation);
  EXPECT_EQ(end.correlation, end_correlation);
  EXPECT_EQ(start.stream, 21u);
  // 800 µs apart on the device clock, whatever the host did meanwhile.
  EXPECT_NEAR(static_cast<double>(events[1].header.ts - events[0].header.ts), 800'000.0, 20'000.0);
  EXPECT_EQ(driver_.events_created(), static_cast<int>(StreamRangeMarker::kEventsPerContext))
      << "one ring of events per context, created on its first range";
}

TEST_F(StreamRangeMarkerTest, RangesWithoutStreamOrSlotOrStartGetNoDeviceTime) {
  EXPECT_FALSE(marker_.Start(5, nullptr));
  EXPECT_FALSE(marker_.End(5)) << "never started on a stream";
  ASSERT_TRUE(marker_.Start(7, stream_));
  EXPECT_FALSE(marker_.Start(7 + StreamRangeMarker::kRangeSlots, stream_)) << "slot taken";
  EXPECT_EQ(marker_.dropped(), 1u);
  EXPECT_TRUE(marker_.End(7));
  EXPECT_FALSE(marker_.End(7)) << "one end per range";
  EXPECT_TRUE(marker_.Start(7 + StreamRangeMarker::kRangeSlots, stream_)) << "slot free again";
  marker_.set_enabled(false);
  EXPECT_FALSE(marker_.Start(9, stream_)) << "off outside a window";
  EXPECT_EQ(driver_.events_recorded(), 3);
  // Range 7 + 4096 was never ended; the next window reuses its slot.
  marker_.set_enabled(true);
  EXPECT_TRUE(marker_.Start(7 + 2 * StreamRangeMarker::kRangeSlots, stream_));
  EXPECT_EQ(marker_.dropped(), 1u);
}

TEST_F(StreamRangeMarkerTest, LegacyDefaultStreamUsesTheCurrentContext) {
  DriverApi driver = driver_.api();
  ASSERT_EQ(driver.ctx_push_current(context_), CUDA_SUCCESS);
  EXPECT_TRUE(marker_.Start(12, CU_STREAM_LEGACY));
  EXPECT_TRUE(marker_.End(12));
  CUcontext popped = nullptr;
  driver.ctx_pop_current(&popped);
  collector_->Flush();
  const auto events = host_.OfKind(static_cast<uint8_t>(CudaRecordKind::kCudaEvent));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].As<format::CudaEventRecord>(0).stream, 7u);
}

// Threads marking ranges on streams of two contexts at once (for TSan): each context gets
// one ring of events, and every range gets its start and end event.
TEST_F(StreamRangeMarkerTest, ThreadsMarkingAtOnceShareOneRingPerContext) {
  const CUcontext other = driver_.AddDevice(1, true);
  const CUstream streams[] = {stream_, driver_.AddStream(other, 31)};
  constexpr int kThreads = 4, kRanges = 40;
  std::vector<std::thread> threads;
  std::atomic<int> marked{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRanges; ++r) {
        const uint64_t id = 1000 + static_cast<uint64_t>(t * kRanges + r);
        if (marker_.Start(id, streams[(t + r) % 2]) && marker_.End(id)) marked.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(marked.load(), kThreads * kRanges);
  EXPECT_EQ(marker_.dropped(), 0u);
  EXPECT_EQ(driver_.events_created(), 2 * static_cast<int>(StreamRangeMarker::kEventsPerContext));
  EXPECT_EQ(driver_.events_recorded(), 2 * kThreads * kRanges);
}

}  // namespace
}  // namespace aiprof::cuda
