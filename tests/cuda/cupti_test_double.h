// CUPTI TEST DOUBLE. There is no GPU on the build and CI machines, so the CUDA source's
// logic is exercised against this stand-in for libcupti's Activity API: a CuptiApi whose
// entries keep an in-memory queue of activity records (real CUpti_Activity* structs from
// cupti_activity.h, built by tests/cuda/recorded_session.h) and deliver them the way CUPTI
// does: through the collector's own buffer-requested / buffer-completed callbacks, packed
// 8-byte aligned into the buffers the collector hands out, read back with
// cuptiActivityGetNextRecord semantics, with dropped records counted when a buffer request
// is refused and reset on cuptiActivityGetNumDroppedRecords.
//
// Where the real libcupti works without a GPU (callback names, result strings,
// cuptiGetTimestamp) the double forwards to it.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "sources/cuda/cupti_api.h"

namespace aiprof::cuda::testing {

class CuptiTestDouble {
 public:
  CuptiTestDouble();
  ~CuptiTestDouble();
  CuptiTestDouble(const CuptiTestDouble&) = delete;
  CuptiTestDouble& operator=(const CuptiTestDouble&) = delete;

  CuptiApi api() const;

  // --- Behaviour of the simulated CUPTI ---
  // Older CUPTI (or a failing registration): activity keeps CUPTI's own clock.
  void set_timestamp_callback_supported(bool supported) {
    timestamp_callback_supported_ = supported;
  }
  // The simulated CUPTI clock, ns. Tests place activity relative to it.
  uint64_t cupti_now() const;
  // CUPTI takes `count` buffers for work in flight and gives them back, empty, at the end
  // of the next flush; meanwhile the client's pool has that many fewer.
  void HoldBuffers(size_t count);

  // --- Activity "recorded" by the simulated driver ---
  // Queues one activity record if its kind is enabled (as CUPTI records only enabled kinds).
  // Timestamps are given on the CUPTI clock; when a timestamp callback is registered they
  // are moved onto the callback's clock, as CUPTI stamps with the callback. API records
  // made while external ids are pushed on `thread` are preceded by EXTERNAL_CORRELATION
  // records, as CUPTI does.
  template <typename Activity>
  void Record(Activity activity) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!enabled_.contains(activity.kind)) return;
    Stamp(&activity);
    Queue(&activity, sizeof(activity));
  }
  void RecordApi(CUpti_ActivityAPI call);

  // --- What the collector did ---
  bool enabled(CUpti_ActivityKind kind) const;
  size_t queued() const;
  uint64_t buffers_requested() const { return buffers_requested_; }
  uint64_t buffers_refused() const { return buffers_refused_; }
  uint64_t records_delivered() const { return records_delivered_; }
  uint64_t records_dropped_total() const { return dropped_total_; }
  int flush_calls() const { return flush_calls_; }
  int forced_flush_calls() const { return forced_flush_calls_; }
  bool timestamp_callback_registered() const { return timestamp_callback_ != nullptr; }
  bool cuda_event_device_timestamps() const { return cuda_event_device_timestamps_; }
  CUpti_ActivityThreadIdType thread_id_type() const { return thread_id_type_; }
  size_t external_depth(CUpti_ExternalCorrelationKind kind) const;

  static size_t RecordSize(CUpti_ActivityKind kind);

 private:
  static CuptiTestDouble* instance();
  static CUptiResult Enable(CUpti_ActivityKind kind);
  static CUptiResult Disable(CUpti_ActivityKind kind);
  static CUptiResult RegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                       CUpti_BuffersCallbackCompleteFunc completed);
  static CUptiResult RegisterTimestampCallback(CUpti_TimestampCallbackFunc callback);
  static CUptiResult FlushAll(uint32_t flag);
  static CUptiResult GetNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record);
  static CUptiResult GetNumDroppedRecords(CUcontext context, uint32_t stream, size_t* dropped);
  static CUptiResult PushExternal(CUpti_ExternalCorrelationKind kind, uint64_t id);
  static CUptiResult PopExternal(CUpti_ExternalCorrelationKind kind, uint64_t* last_id);
  static CUptiResult SetThreadIdType(CUpti_ActivityThreadIdType type);
  static CUptiResult GetTimestamp(uint64_t* timestamp);
  static CUptiResult GetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name);
  static CUptiResult GetResultString(CUptiResult result, const char** text);
  static CUptiResult EnableCudaEventDeviceTimestamps(uint8_t enable);

  // Real CUPTI reads the callback when each event happens. The double records events after
  // the fact, so it places them on the callback's clock by their age on the CUPTI clock,
  // scaled by the callback clock's rate (measured at registration: it may count TSC ticks).
  template <typename Activity>
  void Stamp(Activity* activity) {
    if (timestamp_callback_ == nullptr) return;
    const uint64_t callback_now = timestamp_callback_();
    const uint64_t now = cupti_now();
    const double rate = callback_ticks_per_ns_;
    auto move = [&](uint64_t* ts) {
      if (*ts == 0) return;
      const double age = static_cast<double>(static_cast<int64_t>(now - *ts));
      *ts = callback_now - static_cast<int64_t>(age * rate);
    };
    if constexpr (requires { activity->start; }) {
      move(&activity->start);
      move(&activity->end);
    } else if constexpr (requires { activity->timestamp; }) {
      move(&activity->timestamp);
    } else if constexpr (requires { activity->deviceTimestamp; }) {
      move(&activity->deviceTimestamp);
    }
  }
  void Queue(const void* activity, size_t size);
  void Deliver(uint32_t flag);

  mutable std::mutex mutex_;
  CuptiApi real_{};  // the real libcupti, for what works without a GPU
  bool have_real_ = false;
  bool timestamp_callback_supported_ = true;
  bool cuda_event_device_timestamps_ = false;
  std::set<CUpti_ActivityKind> enabled_;
  CUpti_BuffersCallbackRequestFunc requested_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed_ = nullptr;
  CUpti_TimestampCallbackFunc timestamp_callback_ = nullptr;
  double callback_ticks_per_ns_ = 1.0;
  CUpti_ActivityThreadIdType thread_id_type_ = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  std::vector<std::vector<uint8_t>> queue_;
  std::vector<std::pair<uint8_t*, size_t>> held_;
  std::map<CUpti_ExternalCorrelationKind, std::vector<uint64_t>> external_;
  size_t dropped_since_query_ = 0;
  uint64_t dropped_total_ = 0;
  uint64_t buffers_requested_ = 0;
  uint64_t buffers_refused_ = 0;
  uint64_t records_delivered_ = 0;
  int flush_calls_ = 0;
  int forced_flush_calls_ = 0;
};

}  // namespace aiprof::cuda::testing
