// The CUDA collector against the CUPTI test double: recorded activity goes through the
// real buffer-requested/completed path and comes out as aiprof records.
#include "sources/cuda/cuda_collector.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "cuda/cupti_test_double.h"
#include "cuda/recorded_session.h"
#include "cuda/recording_host.h"
#include "format/records_cuda.h"

namespace aiprof::cuda {
namespace {

using format::CudaRecordKind;
using testing::CuptiTestDouble;
using testing::EmittedRecord;
using testing::RecordingHost;

constexpr uint8_t Kind(CudaRecordKind kind) {
  return static_cast<uint8_t>(kind);
}
const uint32_t kAppTid = static_cast<uint32_t>(syscall(SYS_gettid));

class CudaCollectorTest : public ::testing::Test {
 protected:
  void Attach(CollectorOptions options = {}, double ticks_per_ns = 1.0) {
    host_ = std::make_unique<RecordingHost>(ticks_per_ns);
    collector_ = std::make_unique<CudaCollector>(cupti_.api(), host_->host(), options);
    std::string error;
    ASSERT_TRUE(collector_->Attach(&error)) << error;
  }
  void Start(ActivitySelection selection = {}) {
    std::string error, warnings;
    ASSERT_TRUE(collector_->Start(selection, &error, &warnings)) << error;
    EXPECT_EQ(warnings, "");
  }
  std::vector<EmittedRecord> Of(CudaRecordKind kind) { return host_->OfKind(Kind(kind)); }

  CuptiTestDouble cupti_;
  std::unique_ptr<RecordingHost> host_;
  std::unique_ptr<CudaCollector> collector_;
};

TEST_F(CudaCollectorTest, AttachRegistersCallbacksClockAndSystemThreadIds) {
  Attach();
  EXPECT_TRUE(cupti_.timestamp_callback_registered());
  EXPECT_EQ(cupti_.thread_id_type(), CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  EXPECT_TRUE(collector_->stats().clock_is_process_clock);
}

TEST_F(CudaCollectorTest, EnablesConcurrentKernelNeverTheSerializingKernelKind) {
  Attach();
  Start(ActivitySelection{.runtime_api = true, .driver_api = false, .memory = true});
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MEMORY2,
        CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        CUPTI_ACTIVITY_KIND_DEVICE}) {
    EXPECT_TRUE(cupti_.enabled(kind)) << kind;
  }
  EXPECT_FALSE(cupti_.enabled(CUPTI_ACTIVITY_KIND_KERNEL));
  EXPECT_FALSE(cupti_.enabled(CUPTI_ACTIVITY_KIND_DRIVER));
  collector_->Stop();
  EXPECT_FALSE(cupti_.enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_GE(cupti_.forced_flush_calls(), 1);
}

TEST_F(CudaCollectorTest, ConvertsEveryRecordOfTheSession) {
  Attach();
  Start();
  const testing::RecordedSession session = testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();

  EXPECT_EQ(cupti_.queued(), 0u);
  EXPECT_EQ(Of(CudaRecordKind::kKernel).size(), static_cast<size_t>(session.kernels));
  EXPECT_EQ(Of(CudaRecordKind::kMemcpy).size(), static_cast<size_t>(session.memcpys));
  EXPECT_EQ(Of(CudaRecordKind::kMemset).size(), static_cast<size_t>(session.memsets));
  EXPECT_EQ(Of(CudaRecordKind::kSynchronization).size(), static_cast<size_t>(session.syncs));
  EXPECT_EQ(Of(CudaRecordKind::kDevice).size(), 1u);
  EXPECT_EQ(Of(CudaRecordKind::kContext).size(), 1u);
  EXPECT_EQ(Of(CudaRecordKind::kOverhead).size(), 1u);
  const auto calls = Of(CudaRecordKind::kApi);
  ASSERT_EQ(calls.size(), static_cast<size_t>(session.runtime_calls));
  for (const EmittedRecord& call : calls) {
    EXPECT_EQ(call.tid, kAppTid) << "API records belong to the calling thread";
    EXPECT_EQ(call.header.aux, static_cast<uint16_t>(format::CudaApiDomain::kRuntime));
  }
  EXPECT_EQ(host_->String(calls[1].header.arg), "cudaLaunchKernel_v7000");
  const CollectorStats stats = collector_->stats();
  EXPECT_EQ(stats.conversion.unhandled, 0u);
  EXPECT_EQ(stats.conversion.incomplete, 0u);
  EXPECT_EQ(stats.cupti_dropped, 0u);
}

// The critical path's cross-stream edges need, for every event wait, the stream and the
// cudaEventRecord call it waits for: CUDA_EVENT is collected without device markers too, its
// records kept without a device timestamp, and CUPTI's sync ids kept on both sides.
TEST_F(CudaCollectorTest, EventRecordsAndWaitsKeepWhatTheCrossStreamEdgesNeed) {
  Attach();
  Start();
  EXPECT_TRUE(cupti_.enabled(CUPTI_ACTIVITY_KIND_CUDA_EVENT));
  const testing::EventWaitSession session = testing::RecordEventWaitSession(cupti_, kAppTid);
  collector_->Flush();
  const auto events = Of(CudaRecordKind::kCudaEvent);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].header.arg, format::kCudaEventHostTime) << "no device timestamp";
  EXPECT_GT(events[0].header.ts, 0u);
  ASSERT_EQ(events[0].ext.size(), 2u);
  const auto event = events[0].As<format::CudaEventRecord>(0);
  EXPECT_EQ(event.correlation, session.record_correlation);
  EXPECT_EQ(event.stream, testing::kSessionStreamA);
  EXPECT_EQ(event.event_id, testing::kWaitEventId);
  EXPECT_EQ(events[0].As<format::CudaEventSync>(1).sync_id, 5001u);
  const auto syncs = Of(CudaRecordKind::kSynchronization);
  ASSERT_EQ(syncs.size(), 2u);
  ASSERT_EQ(syncs[0].ext.size(), 3u);
  EXPECT_EQ(syncs[0].As<format::CudaSync>(1).type,
            static_cast<uint32_t>(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT));
  EXPECT_EQ(syncs[0].As<format::CudaSync>(1).cuda_event_id, testing::kWaitEventId);
  EXPECT_EQ(syncs[0].As<format::CudaSpan>(0).stream, testing::kSessionStreamB);
  EXPECT_EQ(syncs[0].As<format::CudaEventSync>(2).sync_id, 5001u);
  EXPECT_EQ(syncs[1].As<format::CudaEventSync>(2).sync_id, 0u) << "CUPTI's invalid value";
  EXPECT_EQ(collector_->stats().conversion.unhandled, 0u);
}

TEST_F(CudaCollectorTest, KernelRecordsCarryLaunchAttributesAndOccupancy) {
  Attach();
  Start();
  testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  const auto kernels = Of(CudaRecordKind::kKernel);
  ASSERT_FALSE(kernels.empty());
  const EmittedRecord& reduce = *std::find_if(kernels.begin(), kernels.end(), [&](auto& k) {
    return host_->String(k.header.arg) == "_Z6reducePKfPfi";
  });
  EXPECT_EQ(reduce.header.aux, testing::kSessionDevice);
  const auto span = reduce.As<format::CudaSpan>(0);
  EXPECT_EQ(span.stream, testing::kSessionStreamA);
  EXPECT_EQ(span.correlation, 104u);
  EXPECT_NEAR(static_cast<double>(span.end - reduce.header.ts), 60'000.0, 600.0);
  const auto geometry = reduce.As<format::CudaKernelGeometry>(1);
  EXPECT_EQ(geometry.grid_x, 1024);
  EXPECT_EQ(geometry.grid_y, 1);
  EXPECT_EQ(geometry.context, testing::kSessionContext);
  const auto resources = reduce.As<format::CudaKernelResources>(2);
  EXPECT_EQ(resources.block_x, 512);
  EXPECT_EQ(resources.registers_per_thread, 32);
  // 512 threads = 16 warps; 32 registers and 3 KiB of shared memory allow 4 blocks; the
  // warp limit (64 / 16) allows 4 too: 64 warps, 100%.
  EXPECT_EQ(resources.occupancy_basis_points, 10000);
  const auto launch = reduce.As<format::CudaKernelLaunch>(4);
  EXPECT_EQ(launch.dynamic_shared_memory, 2048u);
  EXPECT_EQ(launch.blocks_per_sm, 4);
  EXPECT_EQ(launch.warps_per_sm, 64);
  EXPECT_EQ(launch.limiting_factor, format::kOccupancyLimitWarps);
}

TEST_F(CudaCollectorTest, GraphLaunchKeepsOneRecordPerKernelNode) {
  Attach();
  Start();
  const testing::RecordedSession session = testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  std::set<uint64_t> nodes;
  for (const EmittedRecord& kernel : Of(CudaRecordKind::kKernel)) {
    const auto graph = kernel.As<format::CudaGraphNode>(3);
    if (graph.graph_id == 0) continue;
    EXPECT_EQ(graph.graph_id, testing::kSessionGraphId);
    EXPECT_EQ(kernel.As<format::CudaSpan>(0).correlation, session.graph_launch_correlation);
    nodes.insert(graph.graph_node_id);
  }
  EXPECT_EQ(nodes.size(), static_cast<size_t>(session.graph_kernels));
}

TEST_F(CudaCollectorTest, EveryDeviceActivityHasTheApiCallThatLaunchedIt) {
  Attach();
  Start();
  testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  std::set<uint32_t> api_correlations;
  for (const EmittedRecord& call : Of(CudaRecordKind::kApi)) {
    api_correlations.insert(call.As<format::CudaApiCall>(0).correlation);
  }
  for (CudaRecordKind kind : {CudaRecordKind::kKernel, CudaRecordKind::kMemcpy,
                              CudaRecordKind::kMemset, CudaRecordKind::kSynchronization}) {
    for (const EmittedRecord& activity : Of(kind)) {
      EXPECT_TRUE(api_correlations.contains(activity.As<format::CudaSpan>(0).correlation));
    }
  }
  const auto copies = Of(CudaRecordKind::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  const auto htod = copies[0].As<format::CudaCopy>(1);
  EXPECT_EQ(htod.bytes, testing::kSessionCopyBytes);
  EXPECT_EQ(htod.copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  EXPECT_EQ(htod.src_kind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
  EXPECT_EQ(htod.dst_kind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}

TEST_F(CudaCollectorTest, PushedOperatorIdsBecomeExternalCorrelationRecords) {
  Attach();
  EXPECT_FALSE(collector_->PushExternal(format::kCudaExternalOperator, 1)) << "not collecting";
  Start();
  ASSERT_TRUE(collector_->PushExternal(format::kCudaExternalOperator, 4242));
  ASSERT_TRUE(collector_->PushExternal(format::kCudaExternalRange, 77));
  testing::RecordWorkloadSession(cupti_, kAppTid);
  EXPECT_TRUE(collector_->PopExternal(format::kCudaExternalRange));
  EXPECT_TRUE(collector_->PopExternal(format::kCudaExternalOperator));
  EXPECT_EQ(cupti_.external_depth(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0), 0u);
  collector_->Flush();

  std::map<uint32_t, std::map<uint32_t, uint64_t>> by_kind;  // kind → correlation → id
  for (const EmittedRecord& link : Of(CudaRecordKind::kExternalCorrelation)) {
    const auto value = link.As<format::CudaExternalCorrelation>(0);
    by_kind[value.external_kind][value.correlation] = value.external_id;
  }
  // Every kernel is reachable from the operator through its correlation id.
  for (const EmittedRecord& kernel : Of(CudaRecordKind::kKernel)) {
    const uint32_t correlation = kernel.As<format::CudaSpan>(0).correlation;
    EXPECT_EQ(by_kind[format::kCudaExternalOperator][correlation], 4242u);
    EXPECT_EQ(by_kind[format::kCudaExternalRange][correlation], 77u);
  }
}

TEST_F(CudaCollectorTest, TimestampsAreOnTheProcessClockThroughTheCallback) {
  Attach();
  Start();
  const uint64_t before = host_->Now();
  const testing::RecordedSession session = testing::RecordWorkloadSession(cupti_, kAppTid);
  const uint64_t after = host_->Now();
  collector_->Flush();
  for (const EmittedRecord& kernel : Of(CudaRecordKind::kKernel)) {
    // The session lies within the last 50 ms of the CUPTI clock at recording time.
    EXPECT_GT(kernel.header.ts + 50'000'000, before);
    EXPECT_LT(kernel.header.ts, after);
  }
  // The clock readings are in the data, for checking the mapping offline.
  const auto readings = Of(CudaRecordKind::kClockOffset);
  ASSERT_GE(readings.size(), 2u);
  EXPECT_GT(readings.back().As<format::CudaClockSample>(0).cupti_ns, session.base_cupti_ns);
}

TEST_F(CudaCollectorTest, WithoutTheCallbackCuptiTimeIsMappedOntoATscLikeClock) {
  cupti_.set_timestamp_callback_supported(false);
  Attach({}, /*ticks_per_ns=*/3.0);
  EXPECT_FALSE(collector_->stats().clock_is_process_clock);
  Start();
  const testing::RecordedSession session = testing::RecordWorkloadSession(cupti_, kAppTid);
  const uint64_t now_ticks = host_->Now();
  const uint64_t now_cupti = cupti_.cupti_now();
  collector_->Flush();
  const auto kernels = Of(CudaRecordKind::kKernel);
  ASSERT_FALSE(kernels.empty());
  const EmittedRecord& first = kernels.front();
  const auto span = first.As<format::CudaSpan>(0);
  // 60 µs of CUPTI time is 180,000 ticks of a 3 GHz clock (slope from two readings 10 ms
  // apart: allow 2%).
  EXPECT_NEAR(static_cast<double>(span.end - first.header.ts), 180'000.0, 3'600.0);
  // And the start lands where the CUPTI time says, within 2% of the 50 ms age.
  const double age_ticks = 3.0 * static_cast<double>(now_cupti - session.first_kernel_start_cupti);
  EXPECT_NEAR(static_cast<double>(now_ticks - first.header.ts), age_ticks, age_ticks * 0.02);
}

TEST_F(CudaCollectorTest, SmallBuffersAreReusedAcrossOneFlush) {
  Attach(CollectorOptions{.buffer_bytes = 4096, .max_buffers = 1});
  Start();
  for (int round = 0; round < 10; ++round) testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  const CollectorStats stats = collector_->stats();
  EXPECT_GE(stats.buffers_completed, 3u);
  EXPECT_EQ(stats.cupti_dropped, 0u);
  EXPECT_EQ(Of(CudaRecordKind::kKernel).size(), 50u);
}

TEST_F(CudaCollectorTest, ExhaustedPoolDropsAreCountedInTheData) {
  Attach(CollectorOptions{.buffer_bytes = 4096, .max_buffers = 1});
  Start();
  cupti_.HoldBuffers(1);  // the pool's only buffer is with CUPTI
  testing::RecordWorkloadSession(cupti_, kAppTid);
  const size_t recorded = cupti_.queued();
  collector_->Flush();
  CollectorStats stats = collector_->stats();
  EXPECT_EQ(stats.cupti_dropped, recorded);
  EXPECT_EQ(stats.pool_refused, 1u);
  EXPECT_TRUE(Of(CudaRecordKind::kKernel).empty());
  auto drops = host_->OfKind(static_cast<uint8_t>(format::RecordKind::kDrops));
  ASSERT_FALSE(drops.empty());
  EXPECT_EQ(drops.back().header.arg, Kind(CudaRecordKind::kCuptiDropped));
  EXPECT_EQ(drops.back().As<format::DropCount>(0).count, recorded);

  // The held buffer came back: the next window's activity is delivered, and the count
  // stays cumulative.
  testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  EXPECT_EQ(Of(CudaRecordKind::kKernel).size(), 5u);
  drops = host_->OfKind(static_cast<uint8_t>(format::RecordKind::kDrops));
  EXPECT_EQ(drops.back().As<format::DropCount>(0).count, recorded);
}

TEST_F(CudaCollectorTest, UnfinishedRecordsFromAForcedFlushCountAsDropped) {
  Attach();
  Start();
  CUpti_ActivityKernel10 unfinished = testing::MakeKernel("_Z5scalePffi", testing::kSessionStreamA,
                                                          900, cupti_.cupti_now(), 0, 1, 32, 8, 0);
  cupti_.Record(unfinished);
  collector_->Stop();
  EXPECT_TRUE(Of(CudaRecordKind::kKernel).empty());
  EXPECT_EQ(collector_->stats().conversion.incomplete, 1u);
  const auto drops = host_->OfKind(static_cast<uint8_t>(format::RecordKind::kDrops));
  ASSERT_FALSE(drops.empty());
  EXPECT_EQ(drops.back().As<format::DropCount>(0).count, 1u);
}

TEST_F(CudaCollectorTest, RecordsTheRuntimeRefusesAreCounted) {
  Attach();
  Start();
  host_->set_refuse(true);
  const testing::RecordedSession session = testing::RecordWorkloadSession(cupti_, kAppTid);
  collector_->Flush();
  EXPECT_GE(collector_->stats().conversion.emit_refused,
            static_cast<uint64_t>(session.kernels + session.runtime_calls));
}

// CUPTI delivers buffers on its own threads while the runtime's writer flushes and
// application threads push operator ids (run under ThreadSanitizer by make test).
TEST_F(CudaCollectorTest, DeliveryFlushAndExternalIdsRunConcurrently) {
  Attach(CollectorOptions{.buffer_bytes = 4096, .max_buffers = 8});
  Start();
  std::atomic<bool> done{false};
  std::thread writer([&] {
    while (!done.load()) collector_->Flush();
  });
  std::thread observer([&] {
    while (!done.load()) (void)collector_->stats();
  });
  constexpr int kRounds = 40;
  for (int round = 0; round < kRounds; ++round) {
    ASSERT_TRUE(collector_->PushExternal(format::kCudaExternalOperator, round + 1));
    testing::RecordWorkloadSession(cupti_, kAppTid);
    ASSERT_TRUE(collector_->PopExternal(format::kCudaExternalOperator));
  }
  done.store(true);
  writer.join();
  observer.join();
  collector_->Stop();
  const CollectorStats stats = collector_->stats();
  EXPECT_EQ(stats.cupti_dropped, 0u);
  EXPECT_EQ(Of(CudaRecordKind::kKernel).size(), static_cast<size_t>(kRounds * 5));
}

TEST_F(CudaCollectorTest, OnlyOneCollectorAttachesPerProcess) {
  Attach();
  RecordingHost other_host;
  CudaCollector second(cupti_.api(), other_host.host(), {});
  std::string error;
  EXPECT_FALSE(second.Attach(&error));
  EXPECT_NE(error.find("already attached"), std::string::npos);
}

}  // namespace
}  // namespace aiprof::cuda
