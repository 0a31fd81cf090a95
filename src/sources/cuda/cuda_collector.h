// The CUPTI activity collector: enables the activity kinds, owns the buffer pool, converts
// completed buffers, flushes, measures the clock and accounts for dropped records. Talks to
// CUPTI only through CuptiApi and to the runtime only through PluginHost.
//
// Threads: BufferRequested/BufferCompleted run on application or CUPTI threads; Flush and
// Stop on the runtime's writer thread. No lock of ours is held while calling
// cuptiActivityFlushAll or cuptiActivityGetNumDroppedRecords (both may call back into us).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "sources/cuda/activity_converter.h"
#include "sources/cuda/buffer_pool.h"
#include "sources/cuda/clock_mapper.h"
#include "sources/cuda/cupti_api.h"
#include "sources/cuda/plugin_host.h"

namespace aiprof::cuda {

struct CollectorOptions {
  size_t buffer_bytes = BufferPool::kDefaultBufferBytes;
  size_t max_buffers = 16;  // 64 MiB of CUPTI buffers at most
};

// What one collection window records, beyond kernels, copies, sets, syncs and overhead.
struct ActivitySelection {
  bool runtime_api = true;  // RUNTIME activity: the API→kernel flows need it
  bool driver_api = true;   // DRIVER activity (cuLaunchKernel of Triton, NCCL, ...)
  bool memory = false;      // MEMORY2 allocations (profile_memory option)
  // CUDA_EVENT with device timestamps, for mstx ranges given a stream (msproftx option).
  // Also enables DRIVER: CUPTI ties external ids to the cuEventRecord calls' API records.
  bool device_markers = false;
};

struct CollectorStats {
  uint64_t buffers_completed = 0;
  uint64_t cupti_dropped = 0;  // cumulative, from cuptiActivityGetNumDroppedRecords
  uint64_t pool_refused = 0;
  ConversionStats conversion;
  bool clock_is_process_clock = false;  // timestamp callback registered
};

class CudaCollector {
 public:
  CudaCollector(const CuptiApi& api, const PluginHost& host, const CollectorOptions& options);
  ~CudaCollector();
  CudaCollector(const CudaCollector&) = delete;
  CudaCollector& operator=(const CudaCollector&) = delete;

  // Registers the buffer callbacks and the timestamp callback with CUPTI. Once per process
  // (CUPTI keeps one client); the collector must outlive CUPTI's use of the callbacks.
  bool Attach(std::string* error);
  // Enables the activity kinds. Kinds CUPTI refuses are described in `warnings` (one
  // sentence; empty when every kind was enabled).
  bool Start(const ActivitySelection& selection, std::string* error, std::string* warnings);
  // Delivers completed buffers, then writes the drop count and a clock reading.
  void Flush();
  // Forces out every buffer, including unfinished ones, and disables the kinds.
  void Stop();

  // External correlation for a framework operator (kind 0) or an mstx range (kind 1).
  bool PushExternal(uint32_t kind, uint64_t id);
  bool PopExternal(uint32_t kind);

  CollectorStats stats() const;
  bool collecting() const { return collecting_.load(std::memory_order_acquire); }

  void BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  void BufferCompleted(uint8_t* buffer, size_t valid_size);

 private:
  void MeasureClock();
  void EmitDrops();
  void SetKinds(bool enable, std::string* warnings);

  const CuptiApi api_;
  const PluginHost host_;
  BufferPool pool_;
  ActivitySelection selection_;  // written by Start before collecting_ is set
  ClockMapper clock_;
  std::atomic<bool> attached_{false};
  std::atomic<bool> collecting_{false};
  std::atomic<bool> process_clock_{false};

  mutable std::mutex convert_mutex_;  // guards converter_ and buffers_completed_
  ActivityConverter converter_;
  uint64_t buffers_completed_ = 0;
  std::atomic<uint64_t> cupti_dropped_{0};
};

}  // namespace aiprof::cuda
