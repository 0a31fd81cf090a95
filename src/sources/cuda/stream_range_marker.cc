#include "sources/cuda/stream_range_marker.h"

namespace aiprof::cuda {

StreamRangeMarker::StreamRangeMarker(const DriverApi& driver, const CuptiApi& cupti)
    : driver_(driver), cupti_(cupti) {}

StreamRangeMarker::~StreamRangeMarker() {
  for (ContextEvents& slot : contexts_) {
    if (slot.context.load(std::memory_order_acquire) == nullptr) continue;
    for (CUevent event : slot.events) driver_.event_destroy(event);
  }
}

bool StreamRangeMarker::Start(uint64_t range_id, void* stream_handle) {
  if (range_id == 0 || stream_handle == nullptr || !enabled()) return false;
  const auto stream = static_cast<CUstream>(stream_handle);
  CUcontext context = nullptr;
  if (range_id > kIdMask || driver_.stream_get_ctx(stream, &context) != CUDA_SUCCESS ||
      context == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const uint64_t window = window_.load(std::memory_order_acquire) & 0xffff;
  const uint64_t key = (window << kIdBits) | range_id;
  RangeSlot& slot = ranges_[range_id % kRangeSlots];
  uint64_t expected = 0;
  if (!slot.key.compare_exchange_strong(expected, key, std::memory_order_acq_rel)) {
    // Taken by a range an earlier window never ended: that range is over, reuse the slot.
    const bool stale = (expected >> kIdBits) != window;
    if (!stale || !slot.key.compare_exchange_strong(expected, key, std::memory_order_acq_rel)) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  slot.stream.store(stream, std::memory_order_relaxed);
  slot.context.store(context, std::memory_order_relaxed);
  if (!Record(context, stream, StartId(range_id))) {
    uint64_t mine = key;
    slot.key.compare_exchange_strong(mine, 0, std::memory_order_acq_rel);
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

bool StreamRangeMarker::End(uint64_t range_id) {
  if (range_id == 0 || range_id > kIdMask) return false;
  RangeSlot& slot = ranges_[range_id % kRangeSlots];
  uint64_t key = slot.key.load(std::memory_order_acquire);
  if ((key & kIdMask) != range_id) return false;
  CUstream stream = slot.stream.load(std::memory_order_relaxed);
  CUcontext context = slot.context.load(std::memory_order_relaxed);
  // Another thread ending the same range at once gets nothing (one end per range).
  if (!slot.key.compare_exchange_strong(key, 0, std::memory_order_acq_rel)) return false;
  if (Record(context, stream, EndId(range_id))) return true;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool StreamRangeMarker::Record(CUcontext context, CUstream stream, uint64_t external_id) {
  ContextEvents* events = EventsFor(context);
  if (events == nullptr) return false;
  const uint32_t index = events->next.fetch_add(1, std::memory_order_relaxed) % kEventsPerContext;
  // Re-recording an event whose previous record the GPU has not reached yet is allowed:
  // each cuEventRecord call gets its own CUDA_EVENT activity record.
  if (cupti_.activity_push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2,
                                                   external_id) != CUPTI_SUCCESS) {
    return false;
  }
  const CUresult result = driver_.event_record(events->events[index], stream);
  uint64_t popped = 0;
  cupti_.activity_pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &popped);
  return result == CUDA_SUCCESS;
}

StreamRangeMarker::ContextEvents* StreamRangeMarker::EventsFor(CUcontext context) {
  for (ContextEvents& slot : contexts_) {
    if (slot.context.load(std::memory_order_acquire) == context) return &slot;
  }
  std::lock_guard<std::mutex> lock(create_mutex_);
  for (ContextEvents& slot : contexts_) {
    const CUcontext owner = slot.context.load(std::memory_order_acquire);
    if (owner == context) return &slot;
    if (owner == nullptr) return CreateEvents(context, &slot) ? &slot : nullptr;
  }
  return nullptr;  // more contexts than slots: those ranges get no device time
}

bool StreamRangeMarker::CreateEvents(CUcontext context, ContextEvents* slot) {
  if (driver_.ctx_push_current(context) != CUDA_SUCCESS) return false;
  size_t created = 0;
  while (created < kEventsPerContext &&
         driver_.event_create(&slot->events[created], CU_EVENT_DEFAULT) == CUDA_SUCCESS) {
    ++created;
  }
  CUcontext popped = nullptr;
  driver_.ctx_pop_current(&popped);
  if (created < kEventsPerContext) {
    for (size_t i = 0; i < created; ++i) driver_.event_destroy(slot->events[i]);
    return false;
  }
  slot->context.store(context, std::memory_order_release);
  return true;
}

}  // namespace aiprof::cuda
