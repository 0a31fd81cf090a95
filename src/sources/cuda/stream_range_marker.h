// Device time of mstx ranges given a stream. At range start and end the calling thread
// records a CUDA event on the stream (cuEventRecord: asynchronous, it never waits for the
// GPU) inside a CUPTI external correlation of kind CUSTOM2 whose id names the range and the
// end. CUPTI's CUDA_EVENT activity (with device timestamps enabled) then reports when the
// GPU reached each event, and the importer joins the two through the cuEventRecord call's
// correlation id: the range's Device Start/End and a slice on the stream's timeline track.
//
// Nothing here allocates or waits on the hot path: ranges in flight live in a fixed table
// indexed by range id, events come from a fixed ring per context created once per context
// (the first range on it). A range that finds its table slot taken, or no events, gets no
// device time and is counted in dropped().
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "sources/cuda/cupti_api.h"
#include "sources/cuda/driver_api.h"

namespace aiprof::cuda {

class StreamRangeMarker {
 public:
  static constexpr size_t kRangeSlots = 4096;
  static constexpr size_t kContexts = 16;
  static constexpr size_t kEventsPerContext = 64;

  StreamRangeMarker(const DriverApi& driver, const CuptiApi& cupti);
  ~StreamRangeMarker();
  StreamRangeMarker(const StreamRangeMarker&) = delete;
  StreamRangeMarker& operator=(const StreamRangeMarker&) = delete;

  // Each enable starts a new window: slots of ranges a past window never ended are reused.
  void set_enabled(bool enabled) {
    if (enabled) window_.fetch_add(1, std::memory_order_acq_rel);
    enabled_.store(enabled, std::memory_order_release);
  }
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }

  // True when the start event was recorded on `stream` (a CUstream; CU_STREAM_LEGACY for
  // the legacy default stream).
  bool Start(uint64_t range_id, void* stream);
  // True when the range had a start event and its end event was recorded on that stream.
  bool End(uint64_t range_id);

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // External ids of kind CUSTOM2 (format::kCudaExternalDeviceMarker).
  static uint64_t StartId(uint64_t range_id) { return range_id * 2; }
  static uint64_t EndId(uint64_t range_id) { return range_id * 2 + 1; }

 private:
  // A slot's key packs the window that started the range (high 16 bits) with the range id
  // (low 48 bits), so claiming a slot and telling it stale is one atomic word.
  static constexpr int kIdBits = 48;
  static constexpr uint64_t kIdMask = (uint64_t{1} << kIdBits) - 1;
  struct RangeSlot {
    std::atomic<uint64_t> key{0};
    std::atomic<CUstream> stream{nullptr};
    std::atomic<CUcontext> context{nullptr};
  };
  struct ContextEvents {
    std::atomic<CUcontext> context{nullptr};
    CUevent events[kEventsPerContext]{};
    std::atomic<uint32_t> next{0};
  };

  bool Record(CUcontext context, CUstream stream, uint64_t external_id);
  ContextEvents* EventsFor(CUcontext context);
  bool CreateEvents(CUcontext context, ContextEvents* slot);

  const DriverApi driver_;
  const CuptiApi cupti_;
  std::atomic<bool> enabled_{false};
  std::atomic<uint32_t> window_{0};
  std::atomic<uint64_t> dropped_{0};
  RangeSlot ranges_[kRangeSlots];
  ContextEvents contexts_[kContexts];
  std::mutex create_mutex_;  // creating one context's events (once per context)
};

}  // namespace aiprof::cuda
