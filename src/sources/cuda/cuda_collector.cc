#include "sources/cuda/cuda_collector.h"

#include <chrono>
#include <cstdint>
#include <thread>

#include "format/records_cuda.h"

namespace aiprof::cuda {
namespace {

std::atomic<CudaCollector*> g_attached{nullptr};

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  CudaCollector* collector = g_attached.load(std::memory_order_acquire);
  if (collector == nullptr) {
    *buffer = nullptr;
    *size = 0;
    *max_records = 0;
    return;
  }
  collector->BufferRequested(buffer, size, max_records);
}

void CUPTIAPI OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  if (CudaCollector* collector = g_attached.load(std::memory_order_acquire)) {
    collector->BufferCompleted(buffer, valid_size);
  }
}

// Always collected: device activity, correlation and CUPTI's own cost.
constexpr CUpti_ActivityKind kBaseKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,
    CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    // Which stream and cudaEventRecord call each event wait (a SYNCHRONIZATION record of a
    // cudaStreamWaitEvent or cudaEventSynchronize) waits for: the critical path's
    // cross-stream edges. A record per cudaEventRecord call, written off the job's threads.
    CUPTI_ACTIVITY_KIND_CUDA_EVENT,
};

const char* ActivityKindName(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return "DEVICE";
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return "CONTEXT";
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return "MEMCPY";
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return "MEMSET";
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return "SYNCHRONIZATION";
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return "OVERHEAD";
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return "EXTERNAL_CORRELATION";
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      return "RUNTIME";
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return "DRIVER";
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return "MEMORY2";
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return "CUDA_EVENT";
    default:
      return "other";
  }
}

CUpti_ExternalCorrelationKind CuptiExternalKind(uint32_t kind) {
  return kind == format::kCudaExternalRange ? CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1
                                            : CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
}

}  // namespace

CudaCollector::CudaCollector(const CuptiApi& api, const PluginHost& host,
                             const CollectorOptions& options)
    : api_(api),
      host_(host),
      pool_(options.buffer_bytes, options.max_buffers),
      converter_(api_, host_) {}

CudaCollector::~CudaCollector() {
  CudaCollector* self = this;
  g_attached.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
}

bool CudaCollector::Attach(std::string* error) {
  if (attached_.load(std::memory_order_acquire)) return true;
  CudaCollector* expected = nullptr;
  if (!g_attached.compare_exchange_strong(expected, this, std::memory_order_acq_rel)) {
    *error = "another CUDA collector is already attached to CUPTI in this process";
    return false;
  }
  // Thread ids in API records must be the OS tids the runtime uses for its chunks.
  api_.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  CUptiResult result = api_.activity_register_callbacks(OnBufferRequested, OnBufferCompleted);
  if (result != CUPTI_SUCCESS) {
    g_attached.store(nullptr, std::memory_order_release);
    *error = "cuptiActivityRegisterCallbacks failed: " + DescribeCuptiResult(api_, result);
    return false;
  }
  if (api_.activity_register_timestamp_callback(host_.now) == CUPTI_SUCCESS) {
    process_clock_.store(true, std::memory_order_release);
    clock_.UseIdentity();
  }
  attached_.store(true, std::memory_order_release);
  return true;
}

bool CudaCollector::Start(const ActivitySelection& selection, std::string* error,
                          std::string* warnings) {
  if (!attached_.load(std::memory_order_acquire)) {
    *error = "the CUDA collector is not attached to CUPTI";
    return false;
  }
  if (collecting_.load(std::memory_order_acquire)) return true;
  selection_ = selection;
  collecting_.store(true, std::memory_order_release);
  if (!process_clock_.load(std::memory_order_acquire)) {
    // Two readings 10 ms apart give the first slope; every flush adds one (a longer
    // baseline, so a better slope).
    MeasureClock();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  MeasureClock();
  SetKinds(true, warnings);
  return true;
}

void CudaCollector::SetKinds(bool enable, std::string* warnings) {
  int requested = 0, refused = 0;
  CUptiResult last_error = CUPTI_SUCCESS;
  std::string refused_kinds;
  auto set = [&](CUpti_ActivityKind kind) {
    ++requested;
    CUptiResult result = enable ? api_.activity_enable(kind) : api_.activity_disable(kind);
    if (result == CUPTI_SUCCESS) return;
    ++refused;
    last_error = result;
    refused_kinds += (refused_kinds.empty() ? "" : ", ") + std::string(ActivityKindName(kind)) +
                     " (" + DescribeCuptiResult(api_, result) + ")";
  };
  for (CUpti_ActivityKind kind : kBaseKinds) set(kind);
  if (selection_.runtime_api) set(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (selection_.driver_api || selection_.device_markers) set(CUPTI_ACTIVITY_KIND_DRIVER);
  if (selection_.memory) set(CUPTI_ACTIVITY_KIND_MEMORY2);
  if (selection_.device_markers) {
    if (api_.activity_enable_cuda_event_device_timestamps == nullptr) {
      ++requested;
      ++refused;
      refused_kinds += std::string(refused_kinds.empty() ? "" : ", ") +
                       "CUDA event device timestamps (this libcupti lacks "
                       "cuptiActivityEnableCudaEventDeviceTimestamps; mstx ranges get no "
                       "device time)";
    } else {
      api_.activity_enable_cuda_event_device_timestamps(enable ? 1 : 0);  // CUDA_EVENT: base
    }
  }
  if (warnings == nullptr || refused == 0) return;
  if (refused == requested) {
    *warnings = "CUPTI refused every activity kind (" + DescribeCuptiResult(api_, last_error) +
                "): no usable CUDA driver or GPU in this process? No CUDA activity is recorded";
  } else {
    *warnings = "CUPTI refused " + refused_kinds + "; the other kinds are recorded";
  }
}

void CudaCollector::Flush() {
  if (!attached_.load(std::memory_order_acquire)) return;
  api_.activity_flush_all(0);
  MeasureClock();
  EmitDrops();
}

void CudaCollector::Stop() {
  if (!collecting_.exchange(false, std::memory_order_acq_rel)) return;
  // Forced: also hands back buffers holding unfinished records, so nothing of this window
  // is left in CUPTI when the runtime writes its last chunk.
  api_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  SetKinds(false, nullptr);
  api_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  MeasureClock();
  EmitDrops();
}

bool CudaCollector::PushExternal(uint32_t kind, uint64_t id) {
  if (!collecting_.load(std::memory_order_relaxed)) return false;
  return api_.activity_push_external_correlation_id(CuptiExternalKind(kind), id) == CUPTI_SUCCESS;
}

bool CudaCollector::PopExternal(uint32_t kind) {
  if (!attached_.load(std::memory_order_relaxed)) return false;
  uint64_t last = 0;
  return api_.activity_pop_external_correlation_id(CuptiExternalKind(kind), &last) == CUPTI_SUCCESS;
}

void CudaCollector::BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = pool_.Acquire();
  *size = *buffer == nullptr ? 0 : pool_.buffer_bytes();
  *max_records = 0;
}

void CudaCollector::BufferCompleted(uint8_t* buffer, size_t valid_size) {
  {
    std::lock_guard<std::mutex> lock(convert_mutex_);
    converter_.set_clock(clock_.Current());
    CUpti_Activity* record = nullptr;
    while (api_.activity_get_next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      converter_.Convert(*record);
    }
    ++buffers_completed_;
  }
  pool_.Release(buffer);
  // After our lock is released: CUPTI takes its own lock here, which bufferRequested's
  // caller may hold (Kineto's ABBA deadlock).
  size_t dropped = 0;
  if (api_.activity_get_num_dropped_records(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    cupti_dropped_.fetch_add(dropped, std::memory_order_relaxed);
  }
}

void CudaCollector::MeasureClock() {
  // The most tightly bracketed of a few readings: a reading interrupted between the two
  // process-clock reads would put the pair off by the interruption.
  constexpr int kAttempts = 5;
  uint64_t best_window = UINT64_MAX, best_middle = 0, best_cupti = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const uint64_t before = host_.now();
    uint64_t cupti_ns = 0;
    const CUptiResult result = api_.get_timestamp(&cupti_ns);
    const uint64_t after = host_.now();
    if (result != CUPTI_SUCCESS) return;
    if (after - before < best_window) {
      best_window = after - before;
      best_middle = before + (after - before) / 2;
      best_cupti = cupti_ns;
    }
  }
  if (!process_clock_.load(std::memory_order_acquire)) clock_.AddSample(best_cupti, best_middle);

  struct {
    format::RecordHeader header;
    format::CudaClockSample sample;
  } record{};
  record.header.ts = best_middle;
  record.header.kind = static_cast<uint8_t>(format::CudaRecordKind::kClockOffset);
  record.header.ext_words = 1;
  record.sample = format::CudaClockSample{best_cupti, best_window};
  host_.emit(&record, 2);
}

void CudaCollector::EmitDrops() {
  uint64_t incomplete = 0;
  {
    std::lock_guard<std::mutex> lock(convert_mutex_);
    incomplete = converter_.stats().incomplete;
  }
  const format::DropRecord record = format::MakeDropRecord(
      host_.now(), static_cast<uint32_t>(format::CudaRecordKind::kCuptiDropped),
      cupti_dropped_.load(std::memory_order_relaxed) + incomplete);
  host_.emit(&record, 2);
}

CollectorStats CudaCollector::stats() const {
  CollectorStats out;
  {
    std::lock_guard<std::mutex> lock(convert_mutex_);
    out.buffers_completed = buffers_completed_;
    out.conversion = converter_.stats();
  }
  out.cupti_dropped = cupti_dropped_.load(std::memory_order_relaxed);
  out.pool_refused = pool_.refused();
  out.clock_is_process_clock = process_clock_.load(std::memory_order_acquire);
  return out;
}

}  // namespace aiprof::cuda
