#include "cuda/cupti_test_double.h"

#include <chrono>
#include <string>
#include <thread>

namespace aiprof::cuda::testing {
namespace {

CuptiTestDouble* g_instance = nullptr;

constexpr size_t kAlignment = 8;  // ACTIVITY_RECORD_ALIGNMENT in cupti_activity.h
size_t Aligned(size_t size) {
  return (size + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

CuptiTestDouble::CuptiTestDouble() {
  std::string error;
  have_real_ = LoadCuptiApi(&real_, &error);
  g_instance = this;
}

CuptiTestDouble::~CuptiTestDouble() {
  if (g_instance == this) g_instance = nullptr;
}

CuptiTestDouble* CuptiTestDouble::instance() {
  return g_instance;
}

CuptiApi CuptiTestDouble::api() const {
  CuptiApi api{};
  api.activity_enable = Enable;
  api.activity_disable = Disable;
  api.activity_register_callbacks = RegisterCallbacks;
  api.activity_register_timestamp_callback = RegisterTimestampCallback;
  api.activity_flush_all = FlushAll;
  api.activity_get_next_record = GetNextRecord;
  api.activity_get_num_dropped_records = GetNumDroppedRecords;
  api.activity_push_external_correlation_id = PushExternal;
  api.activity_pop_external_correlation_id = PopExternal;
  api.set_thread_id_type = SetThreadIdType;
  api.get_timestamp = GetTimestamp;
  api.get_callback_name = GetCallbackName;
  api.get_result_string = GetResultString;
  api.activity_enable_cuda_event_device_timestamps = EnableCudaEventDeviceTimestamps;
  return api;
}

size_t CuptiTestDouble::RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return sizeof(CUpti_ActivityCudaEvent2);
    default:
      return sizeof(CUpti_Activity);
  }
}

uint64_t CuptiTestDouble::cupti_now() const {
  uint64_t now = 0;
  if (have_real_ && real_.get_timestamp(&now) == CUPTI_SUCCESS) return now;
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

void CuptiTestDouble::Queue(const void* activity, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(activity);
  queue_.emplace_back(bytes, bytes + size);
}

void CuptiTestDouble::RecordApi(CUpti_ActivityAPI call) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled_.contains(call.kind)) return;
  if (enabled_.contains(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
    for (const auto& [kind, ids] : external_) {
      if (ids.empty()) continue;
      CUpti_ActivityExternalCorrelation link{};
      link.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
      link.externalKind = kind;
      link.externalId = ids.back();
      link.correlationId = call.correlationId;
      Queue(&link, sizeof(link));
    }
  }
  Stamp(&call);
  Queue(&call, sizeof(call));
}

void CuptiTestDouble::HoldBuffers(size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    requested_(&buffer, &size, &max_records);
    std::lock_guard<std::mutex> lock(mutex_);
    ++buffers_requested_;
    if (buffer == nullptr) {
      ++buffers_refused_;
    } else {
      held_.emplace_back(buffer, size);
    }
  }
}

bool CuptiTestDouble::enabled(CUpti_ActivityKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return enabled_.contains(kind);
}

size_t CuptiTestDouble::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

size_t CuptiTestDouble::external_depth(CUpti_ExternalCorrelationKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = external_.find(kind);
  return found == external_.end() ? 0 : found->second.size();
}

// Hands every queued record to the client the way CUPTI does: one requested buffer at a
// time, filled, then completed. A refused request drops what is still queued. No lock is
// held while calling the client, which calls back into the API.
void CuptiTestDouble::Deliver(uint32_t flag) {
  std::vector<std::vector<uint8_t>> pending;
  std::vector<std::pair<uint8_t*, size_t>> held;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending.swap(queue_);
    held.swap(held_);
    ++flush_calls_;
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) ++forced_flush_calls_;
  }
  if (completed_ == nullptr) return;
  size_t next = 0;
  while (next < pending.size()) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    requested_(&buffer, &size, &max_records);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++buffers_requested_;
      if (buffer == nullptr) ++buffers_refused_;
    }
    if (buffer == nullptr || size == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      dropped_since_query_ += pending.size() - next;
      dropped_total_ += pending.size() - next;
      break;
    }
    size_t used = 0;
    uint64_t count = 0;
    while (next < pending.size() && used + Aligned(pending[next].size()) <= size) {
      std::memcpy(buffer + used, pending[next].data(), pending[next].size());
      used += Aligned(pending[next].size());
      ++next;
      ++count;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      records_delivered_ += count;
    }
    completed_(nullptr, 0, buffer, size, used);
  }
  // Buffers CUPTI held for work still in flight come back last, empty.
  for (auto [buffer, size] : held) completed_(nullptr, 0, buffer, size, 0);
}

CUptiResult CuptiTestDouble::Enable(CUpti_ActivityKind kind) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->enabled_.insert(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::Disable(CUpti_ActivityKind kind) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->enabled_.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::RegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                               CUpti_BuffersCallbackCompleteFunc completed) {
  if (requested == nullptr || completed == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->requested_ = requested;
  self->completed_ = completed;
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::RegisterTimestampCallback(CUpti_TimestampCallbackFunc callback) {
  CuptiTestDouble* self = instance();
  if (!self->timestamp_callback_supported_) return CUPTI_ERROR_NOT_SUPPORTED;
  // The callback clock's rate against the CUPTI clock, from two readings 20 ms apart, each
  // the most tightly bracketed of several (a preempted reading would skew the rate).
  auto reading = [&](double* callback_mid, double* cupti) {
    uint64_t best_window = UINT64_MAX;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const uint64_t before = callback();
      const uint64_t at = self->cupti_now();
      const uint64_t after = callback();
      if (after - before < best_window) {
        best_window = after - before;
        *callback_mid = static_cast<double>(before) + static_cast<double>(after - before) / 2;
        *cupti = static_cast<double>(at);
      }
    }
  };
  double callback_start = 0, cupti_start = 0, callback_end = 0, cupti_end = 0;
  reading(&callback_start, &cupti_start);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  reading(&callback_end, &cupti_end);
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->callback_ticks_per_ns_ = (callback_end - callback_start) / (cupti_end - cupti_start);
  self->timestamp_callback_ = callback;
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::FlushAll(uint32_t flag) {
  instance()->Deliver(flag);
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::GetNextRecord(uint8_t* buffer, size_t valid_size,
                                           CUpti_Activity** record) {
  uint8_t* next = buffer;
  if (*record != nullptr) {
    next = reinterpret_cast<uint8_t*>(*record) + Aligned(RecordSize((*record)->kind));
  }
  if (next + sizeof(CUpti_Activity) > buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::GetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  *dropped = self->dropped_since_query_;
  self->dropped_since_query_ = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::PushExternal(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->external_[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::PopExternal(CUpti_ExternalCorrelationKind kind, uint64_t* last_id) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  auto& ids = self->external_[kind];
  if (ids.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  *last_id = ids.back();
  ids.pop_back();
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::SetThreadIdType(CUpti_ActivityThreadIdType type) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->thread_id_type_ = type;
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::GetTimestamp(uint64_t* timestamp) {
  *timestamp = instance()->cupti_now();
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::GetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                             const char** name) {
  CuptiTestDouble* self = instance();
  if (self->have_real_) return self->real_.get_callback_name(domain, cbid, name);
  static thread_local std::string fallback;
  fallback = "cbid_" + std::to_string(cbid);
  *name = fallback.c_str();
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::GetResultString(CUptiResult result, const char** text) {
  CuptiTestDouble* self = instance();
  if (self->have_real_) return self->real_.get_result_string(result, text);
  *text = "CUPTI error (test double without libcupti)";
  return CUPTI_SUCCESS;
}

CUptiResult CuptiTestDouble::EnableCudaEventDeviceTimestamps(uint8_t enable) {
  CuptiTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->cuda_event_device_timestamps_ = enable != 0;
  return CUPTI_SUCCESS;
}

}  // namespace aiprof::cuda::testing
