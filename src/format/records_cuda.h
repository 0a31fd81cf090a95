// Records of the CUDA source (libaiprof_cuda.so), kinds 80-127. They are converted from
// CUPTI activity records on CUPTI's buffer-completed thread and from NVML samples.
//
// Timestamps: CUPTI stamps activity with the runtime's clock (aiprof_now, registered with
// cuptiActivityRegisterTimestampCallback), so every `ts`/`end` below is in the process
// clock like any other record. When the callback cannot be registered the source maps
// CUPTI's clock onto the process clock itself (see kCudaClockOffset).
//
// Device activity (kernels, copies, sets, synchronization, memory) is emitted on the
// thread that converts it (a CUPTI thread); the importer places it on the GPU lane
// (device, stream). API records are emitted for the thread that made the call.
#pragma once

#include <cstdint>

#include "format/records.h"

namespace aiprof::format {

enum class CudaRecordKind : uint8_t {
  // ts: start. arg: kernel (mangled) name string id. aux: device.
  // ext 0: CudaSpan, 1: CudaKernelGeometry, 2: CudaKernelResources, 3: CudaGraphNode,
  // 4: CudaKernelLaunch.
  kKernel = 80,
  // ts: start. aux: device. ext 0: CudaSpan, 1: CudaCopy, 2: CudaGraphNode.
  kMemcpy = 81,
  // ts: start. aux: device. ext 0: CudaSpan, 1: CudaSet, 2: CudaGraphNode.
  kMemset = 82,
  // Runtime or driver API call. ts: start. arg: function name string id.
  // aux: CudaApiDomain. ext 0: CudaApiCall. Emitted for the calling thread.
  kApi = 83,
  // Host-side wait on the device (cudaStreamSynchronize, cudaEventSynchronize, ...).
  // ts: start. aux: device. ext 0: CudaSpan, 1: CudaSync, 2 (when written): CudaEventSync.
  kSynchronization = 84,
  // Device memory allocation or release (CUPTI MEMORY2). ts: when. aux: device.
  // arg: allocation name string id (memory pool name, usually empty).
  // ext 0: CudaMemory, 1: CudaMemoryDetail.
  kMemory = 85,
  // Time CUPTI spent on its own work. ts: start. ext 0: CudaOverhead.
  kOverhead = 86,
  // CUPTI external correlation: a framework operator or mstx range id attached to the
  // CUDA correlation id of an API call made inside it. ts: conversion time.
  // ext 0: CudaExternalCorrelation.
  kExternalCorrelation = 87,
  // Device properties (one per device seen). arg: device name string id. aux: device.
  // ext 0: CudaDeviceInfo, 1: CudaDeviceLimits, 2: CudaDeviceMemory.
  kDevice = 88,
  // A measurement of CUPTI's clock against the process clock, for checking the mapping.
  // ts: process clock midway through the reading. ext 0: CudaClockSample.
  kClockOffset = 89,
  // CUDA context → device. aux: device. arg: context id. ext: none.
  kContext = 90,
  // Used only as the `arg` of a core kDrops record: activity records CUPTI itself dropped
  // (cuptiActivityGetNumDroppedRecords) plus records lost to buffer requests the source
  // refused because its buffer pool was full. Never appears as a record kind.
  kCuptiDropped = 91,
  // Counter-collection status for --ai-core metrics (permission denied, unsupported device,
  // ...). arg: message string id. aux: CudaMetricsStatus. ext: none.
  kMetricsStatus = 92,
  // A CUDA event recorded on a stream (CUPTI CUDA_EVENT activity: one per cudaEventRecord /
  // cuEventRecord call): the stream and the call's correlation id that a wait on the event
  // (a kSynchronization record naming its cuda_event_id) waits for. With
  // cuptiActivityEnableCudaEventDeviceTimestamps (on for mstx ranges given a stream, whose
  // start and end events an external correlation of kind kCudaExternalDeviceMarker ties to
  // the range) ts is the device timestamp (process clock) and arg 0; without, ts is the
  // host's time of conversion and arg kCudaEventHostTime. aux: device. ext 0: CudaEventRecord,
  // 1 (when written): CudaEventSync.
  kCudaEvent = 93,
  // Hardware counters of one kernel (CUPTI range profiler, auto range = one range per
  // kernel, kernel replay). ts: when the range was read. aux: device. arg: range name string
  // id (the kernel). ext 0: CudaMetricRange; ext 1..: the values as doubles, two per word,
  // in the order of the metric set named by CudaMetricRange::metric_set.
  kKernelMetrics = 94,
  // Used only as the `arg` of a core kDrops record: kernels whose counters the range
  // profiler dropped (counter data image full between two reads). Never a record kind.
  kMetricRangesDropped = 95,
  // Used only as the `arg` of a core kDrops record: mstx ranges given a stream that got no
  // device time (range table slot taken, no events for the context, a failed record).
  kStreamRangesDropped = 96,
};

enum class CudaApiDomain : uint16_t { kRuntime = 0, kDriver = 1 };

// Span of device (or host-wait) activity with its CUDA correlation id and stream.
struct CudaSpan {
  uint64_t end;
  uint32_t correlation;
  uint32_t stream;
};
static_assert(sizeof(CudaSpan) == 16);

struct CudaKernelGeometry {
  int32_t grid_x, grid_y, grid_z;
  uint32_t context;
};
static_assert(sizeof(CudaKernelGeometry) == 16);

struct CudaKernelResources {
  int32_t block_x, block_y, block_z;
  uint16_t registers_per_thread;
  // Theoretical occupancy in 1/10000 (10000 = 100%); 0 when device limits were unknown.
  uint16_t occupancy_basis_points;
};
static_assert(sizeof(CudaKernelResources) == 16);

struct CudaGraphNode {
  uint64_t graph_node_id;  // 0: not launched from a graph
  uint32_t graph_id;
  // Kernels: static shared memory bytes. Copies and sets: 0.
  uint32_t static_shared_memory;
};
static_assert(sizeof(CudaGraphNode) == 16);

struct CudaKernelLaunch {
  uint32_t dynamic_shared_memory;
  uint16_t blocks_per_sm;  // theoretical active blocks per SM (0: unknown)
  uint16_t warps_per_sm;   // theoretical active warps per SM (0: unknown)
  uint32_t local_memory_per_thread;
  uint8_t launch_type;      // CUpti_ActivityLaunchType
  uint8_t limiting_factor;  // CudaOccupancyLimit
  uint16_t reserved;
};
static_assert(sizeof(CudaKernelLaunch) == 16);

enum CudaOccupancyLimit : uint8_t {
  kOccupancyLimitUnknown = 0,
  kOccupancyLimitWarps = 1,
  kOccupancyLimitRegisters = 2,
  kOccupancyLimitSharedMemory = 3,
  kOccupancyLimitBlocks = 4,
};

struct CudaCopy {
  uint64_t bytes;
  uint32_t context;
  uint8_t copy_kind;  // CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...)
  uint8_t src_kind;   // CUpti_ActivityMemoryKind (1 pageable, 2 pinned, 3 device, ...)
  uint8_t dst_kind;
  uint8_t flags;  // CUpti_ActivityFlag bits (bit 0: async)
};
static_assert(sizeof(CudaCopy) == 16);

struct CudaSet {
  uint64_t bytes;
  uint32_t context;
  uint16_t memory_kind;  // CUpti_ActivityMemoryKind
  uint16_t flags;
};
static_assert(sizeof(CudaSet) == 16);

struct CudaApiCall {
  uint64_t end;
  uint32_t correlation;
  uint32_t cbid;  // CUPTI callback id within the domain
};
static_assert(sizeof(CudaApiCall) == 16);

struct CudaSync {
  uint32_t context;
  uint32_t type;  // CUpti_ActivitySynchronizationType (1 event, 2 stream wait, 3 stream, 4 ctx)
  uint32_t cuda_event_id;
  uint32_t return_value;
};
static_assert(sizeof(CudaSync) == 16);

enum CudaMemoryOperation : uint8_t { kCudaMemoryAllocate = 1, kCudaMemoryRelease = 2 };

struct CudaMemory {
  uint64_t address;
  uint64_t bytes;
};
static_assert(sizeof(CudaMemory) == 16);

// Second word of kMemory.
struct CudaMemoryDetail {
  uint32_t correlation;
  uint32_t stream;
  uint32_t context;
  uint8_t operation;    // CudaMemoryOperation
  uint8_t memory_kind;  // CUpti_ActivityMemoryKind
  uint8_t is_async;
  uint8_t pool_type;  // CUpti_ActivityMemoryPoolType
};
static_assert(sizeof(CudaMemoryDetail) == 16);

struct CudaOverhead {
  uint64_t end;
  uint32_t overhead_kind;  // CUpti_ActivityOverheadKind
  uint32_t object_id;      // thread id or device id, per object_kind
};
static_assert(sizeof(CudaOverhead) == 16);

enum CudaExternalKind : uint32_t {
  kCudaExternalOperator = 0,  // framework operator (CUPTI CUSTOM0)
  kCudaExternalRange = 1,     // mstx / NVTX range (CUPTI CUSTOM1)
  kCudaExternalOther = 2,
  // The start (external id = 2 * range id) or end (2 * range id + 1) event of an mstx
  // range on a stream (CUPTI CUSTOM2).
  kCudaExternalDeviceMarker = 3,
};

struct CudaExternalCorrelation {
  uint64_t external_id;
  uint32_t correlation;
  uint32_t external_kind;  // CudaExternalKind
};
static_assert(sizeof(CudaExternalCorrelation) == 16);

struct CudaDeviceInfo {
  uint64_t global_memory_bytes;
  uint32_t sm_count;
  uint16_t compute_major;
  uint16_t compute_minor;
};
static_assert(sizeof(CudaDeviceInfo) == 16);

struct CudaDeviceLimits {
  uint32_t max_warps_per_sm;
  uint32_t max_blocks_per_sm;
  uint32_t max_registers_per_sm;
  uint32_t max_registers_per_block;
};
static_assert(sizeof(CudaDeviceLimits) == 16);

struct CudaDeviceMemory {
  uint32_t max_shared_memory_per_sm;
  uint32_t max_shared_memory_per_block;
  uint32_t max_threads_per_block;
  uint32_t warp_size;
};
static_assert(sizeof(CudaDeviceMemory) == 16);

struct CudaClockSample {
  uint64_t cupti_ns;        // cuptiGetTimestamp()
  uint64_t process_window;  // process-clock ticks between the readings before and after
};
static_assert(sizeof(CudaClockSample) == 16);

// arg of a kCudaEvent record whose ts is no device timestamp (device timestamps off).
inline constexpr uint32_t kCudaEventHostTime = 1;

struct CudaEventRecord {
  uint32_t correlation;  // of the cuEventRecord call
  uint32_t stream;
  uint32_t context;
  uint32_t event_id;
};
static_assert(sizeof(CudaEventRecord) == 16);

// CUPTI's cudaEventSyncId (CUDA 12.8+): the same id on a wait's kSynchronization record and
// on the kCudaEvent record of the cudaEventRecord call it waits for (an event recorded many
// times has one event id but a sync id per record). 0: none.
struct CudaEventSync {
  uint64_t sync_id;
  uint64_t reserved;
};
static_assert(sizeof(CudaEventSync) == 16);

struct CudaMetricRange {
  // Position of the range (kernel) among those profiled on its context since collection
  // started: the i-th kernel launched on the context with counters on.
  uint64_t range_index;
  // String id of the metric set: "column=metric;column=metric;..." (metric_catalog.h).
  uint32_t metric_set;
  uint16_t value_count;
  uint16_t context;  // CUPTI context id, truncated
};
static_assert(sizeof(CudaMetricRange) == 16);

enum class CudaMetricsStatus : uint16_t {
  kCollecting = 0,
  kPermissionDenied = 1,  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES / ERR_NVGPUCTRPERM
  kUnsupportedDevice = 2,
  kUnavailable = 3,  // no CUPTI profiler library, no device, or another error (see message)
};

inline const char* CudaKindName(uint8_t kind) {
  switch (static_cast<CudaRecordKind>(kind)) {
    case CudaRecordKind::kKernel:
      return "cuda_kernel";
    case CudaRecordKind::kMemcpy:
      return "cuda_memcpy";
    case CudaRecordKind::kMemset:
      return "cuda_memset";
    case CudaRecordKind::kApi:
      return "cuda_api";
    case CudaRecordKind::kSynchronization:
      return "cuda_sync";
    case CudaRecordKind::kMemory:
      return "cuda_memory";
    case CudaRecordKind::kOverhead:
      return "cuda_overhead";
    case CudaRecordKind::kExternalCorrelation:
      return "cuda_external_correlation";
    case CudaRecordKind::kDevice:
      return "cuda_device";
    case CudaRecordKind::kClockOffset:
      return "cuda_clock_offset";
    case CudaRecordKind::kContext:
      return "cuda_context";
    case CudaRecordKind::kCuptiDropped:
      return "cupti_dropped";
    case CudaRecordKind::kMetricsStatus:
      return "cuda_metrics_status";
    case CudaRecordKind::kCudaEvent:
      return "cuda_event";
    case CudaRecordKind::kKernelMetrics:
      return "cuda_kernel_metrics";
    case CudaRecordKind::kMetricRangesDropped:
      return "cuda_metric_ranges_dropped";
    case CudaRecordKind::kStreamRangesDropped:
      return "cuda_stream_ranges_dropped";
    default:
      return nullptr;
  }
}

}  // namespace aiprof::format
