#include "sources/cuda/activity_converter.h"

#include <cstring>

#include "format/records_cuda.h"

namespace aiprof::cuda {
namespace {

using format::CudaRecordKind;
using format::ExtWord;
using format::RecordHeader;

// A record under construction: the header and its extension words, laid out as the
// runtime stores them.
template <uint8_t kExtWords>
struct Record {
  RecordHeader header{};
  ExtWord ext[kExtWords]{};

  Record(CudaRecordKind kind, uint64_t ts, uint16_t aux, uint32_t arg) {
    header.ts = ts;
    header.kind = static_cast<uint8_t>(kind);
    header.ext_words = kExtWords;
    header.aux = aux;
    header.arg = arg;
  }
  template <typename T>
  void Set(uint32_t word, const T& value) {
    static_assert(sizeof(T) == sizeof(ExtWord));
    std::memcpy(&ext[word], &value, sizeof(T));
  }
  static constexpr uint32_t words() { return 1 + kExtWords; }
};

uint16_t Device16(uint32_t device) {
  return static_cast<uint16_t>(device);
}

// CUPTI marks a cudaEventSyncId that does not apply with CUPTI_SYNCHRONIZATION_INVALID_VALUE
// (32 bits, or all 64 set); the record keeps 0 for "none".
uint64_t EventSyncId(uint64_t id) {
  return id == CUPTI_SYNCHRONIZATION_INVALID_VALUE || id == UINT64_MAX ? 0 : id;
}

}  // namespace

const DeviceLimits* ActivityConverter::device(uint32_t id) const {
  auto found = devices_.find(id);
  return found == devices_.end() ? nullptr : &found->second;
}

void ActivityConverter::Convert(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      Kernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      Memcpy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      Memset(reinterpret_cast<const CUpti_ActivityMemset4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      Api(reinterpret_cast<const CUpti_ActivityAPI&>(record), CUPTI_CB_DOMAIN_RUNTIME_API);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      Api(reinterpret_cast<const CUpti_ActivityAPI&>(record), CUPTI_CB_DOMAIN_DRIVER_API);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      Synchronization(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      Memory(reinterpret_cast<const CUpti_ActivityMemory4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      Overhead(reinterpret_cast<const CUpti_ActivityOverhead3&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      ExternalCorrelation(reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      Device(reinterpret_cast<const CUpti_ActivityDevice5&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      Context(reinterpret_cast<const CUpti_ActivityContext3&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      CudaEvent(reinterpret_cast<const CUpti_ActivityCudaEvent2&>(record));
      break;
    default:
      ++stats_.unhandled;
      break;
  }
}

bool ActivityConverter::Complete(uint64_t start, uint64_t end) {
  if (start == 0 || end < start) {
    ++stats_.incomplete;
    return false;
  }
  return true;
}

void ActivityConverter::Kernel(const CUpti_ActivityKernel10& kernel) {
  if (!Complete(kernel.start, kernel.end)) return;
  Record<5> out(CudaRecordKind::kKernel, clock_.ToProcess(kernel.start), Device16(kernel.deviceId),
                Intern(kernel.name));
  out.Set(0, format::CudaSpan{clock_.ToProcess(kernel.end), kernel.correlationId, kernel.streamId});
  out.Set(1,
          format::CudaKernelGeometry{kernel.gridX, kernel.gridY, kernel.gridZ, kernel.contextId});

  Occupancy occupancy;
  if (const DeviceLimits* limits = device(kernel.deviceId)) {
    LaunchShape shape;
    shape.threads_per_block = static_cast<uint64_t>(kernel.blockX) *
                              static_cast<uint64_t>(kernel.blockY) *
                              static_cast<uint64_t>(kernel.blockZ);
    shape.registers_per_thread = kernel.registersPerThread;
    shape.shared_memory_per_block = static_cast<uint64_t>(kernel.staticSharedMemory) +
                                    static_cast<uint64_t>(kernel.dynamicSharedMemory);
    shape.shared_memory_carveout = kernel.sharedMemoryExecuted;
    occupancy = TheoreticalOccupancy(*limits, shape);
  }
  out.Set(2, format::CudaKernelResources{kernel.blockX, kernel.blockY, kernel.blockZ,
                                         kernel.registersPerThread,
                                         static_cast<uint16_t>(occupancy.fraction * 10000 + 0.5)});
  out.Set(3, format::CudaGraphNode{kernel.graphNodeId, kernel.graphId,
                                   static_cast<uint32_t>(kernel.staticSharedMemory)});
  format::CudaKernelLaunch launch{};
  launch.dynamic_shared_memory = static_cast<uint32_t>(kernel.dynamicSharedMemory);
  launch.blocks_per_sm = static_cast<uint16_t>(occupancy.blocks_per_sm);
  launch.warps_per_sm = static_cast<uint16_t>(occupancy.warps_per_sm);
  launch.local_memory_per_thread = kernel.localMemoryPerThread;
  launch.launch_type = kernel.launchType;
  launch.limiting_factor = occupancy.limit;
  out.Set(4, launch);
  Emit(&out, out.words());
}

void ActivityConverter::Memcpy(const CUpti_ActivityMemcpy6& copy) {
  if (!Complete(copy.start, copy.end)) return;
  Record<3> out(CudaRecordKind::kMemcpy, clock_.ToProcess(copy.start), Device16(copy.deviceId), 0);
  out.Set(0, format::CudaSpan{clock_.ToProcess(copy.end), copy.correlationId, copy.streamId});
  out.Set(1, format::CudaCopy{copy.bytes, copy.contextId, copy.copyKind, copy.srcKind, copy.dstKind,
                              copy.flags});
  out.Set(2, format::CudaGraphNode{copy.graphNodeId, copy.graphId, 0});
  Emit(&out, out.words());
}

void ActivityConverter::Memset(const CUpti_ActivityMemset4& set) {
  if (!Complete(set.start, set.end)) return;
  Record<3> out(CudaRecordKind::kMemset, clock_.ToProcess(set.start), Device16(set.deviceId), 0);
  out.Set(0, format::CudaSpan{clock_.ToProcess(set.end), set.correlationId, set.streamId});
  out.Set(1, format::CudaSet{set.bytes, set.contextId, set.memoryKind, set.flags});
  out.Set(2, format::CudaGraphNode{set.graphNodeId, set.graphId, 0});
  Emit(&out, out.words());
}

void ActivityConverter::Api(const CUpti_ActivityAPI& call, CUpti_CallbackDomain domain) {
  if (!Complete(call.start, call.end)) return;
  const auto api_domain = domain == CUPTI_CB_DOMAIN_DRIVER_API ? format::CudaApiDomain::kDriver
                                                               : format::CudaApiDomain::kRuntime;
  Record<1> out(CudaRecordKind::kApi, clock_.ToProcess(call.start),
                static_cast<uint16_t>(api_domain), ApiName(domain, call.cbid));
  out.Set(0, format::CudaApiCall{clock_.ToProcess(call.end), call.correlationId, call.cbid});
  EmitForThread(call.threadId, &out, out.words());
}

void ActivityConverter::Synchronization(const CUpti_ActivitySynchronization2& sync) {
  if (!Complete(sync.start, sync.end)) return;
  auto context = context_devices_.find(sync.contextId);
  const uint32_t device_id = context == context_devices_.end() ? 0 : context->second;
  Record<3> out(CudaRecordKind::kSynchronization, clock_.ToProcess(sync.start), Device16(device_id),
                0);
  out.Set(0, format::CudaSpan{clock_.ToProcess(sync.end), sync.correlationId, sync.streamId});
  out.Set(1, format::CudaSync{sync.contextId, static_cast<uint32_t>(sync.type), sync.cudaEventId,
                              sync.returnValue});
  out.Set(2, format::CudaEventSync{EventSyncId(sync.cudaEventSyncId), 0});
  Emit(&out, out.words());
}

void ActivityConverter::Memory(const CUpti_ActivityMemory4& memory) {
  Record<2> out(CudaRecordKind::kMemory, clock_.ToProcess(memory.timestamp),
                Device16(memory.deviceId), Intern(memory.name));
  out.Set(0, format::CudaMemory{memory.address, memory.bytes});
  format::CudaMemoryDetail detail{};
  detail.correlation = memory.correlationId;
  detail.stream = memory.streamId;
  detail.context = memory.contextId;
  detail.operation = memory.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                         ? format::kCudaMemoryRelease
                         : format::kCudaMemoryAllocate;
  detail.memory_kind = static_cast<uint8_t>(memory.memoryKind);
  detail.is_async = memory.isAsync != 0;
  detail.pool_type = static_cast<uint8_t>(memory.memoryPoolConfig.memoryPoolType);
  out.Set(1, detail);
  Emit(&out, out.words());
}

void ActivityConverter::Overhead(const CUpti_ActivityOverhead3& overhead) {
  if (!Complete(overhead.start, overhead.end)) return;
  const uint32_t object_id = overhead.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
                                 ? overhead.objectId.pt.threadId
                                 : overhead.objectId.dcs.deviceId;
  Record<1> out(CudaRecordKind::kOverhead, clock_.ToProcess(overhead.start),
                static_cast<uint16_t>(overhead.objectKind), 0);
  out.Set(0, format::CudaOverhead{clock_.ToProcess(overhead.end),
                                  static_cast<uint32_t>(overhead.overheadKind), object_id});
  Emit(&out, out.words());
}

void ActivityConverter::ExternalCorrelation(const CUpti_ActivityExternalCorrelation& link) {
  uint32_t kind = format::kCudaExternalOther;
  if (link.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
    kind = format::kCudaExternalOperator;
  } else if (link.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1) {
    kind = format::kCudaExternalRange;
  } else if (link.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2) {
    kind = format::kCudaExternalDeviceMarker;
  }
  Record<1> out(CudaRecordKind::kExternalCorrelation, host_.now(), 0, 0);
  out.Set(0, format::CudaExternalCorrelation{link.externalId, link.correlationId, kind});
  Emit(&out, out.words());
}

// With a device timestamp (mstx ranges given a stream) the event places a point on the
// device timeline; without one (device timestamps off) it still says which stream and which
// cudaEventRecord call the waits on this event wait for (the importer's event-wait edges),
// stamped with the host's time and marked so.
void ActivityConverter::CudaEvent(const CUpti_ActivityCudaEvent2& event) {
  const bool device_time = event.deviceTimestamp != 0;
  Record<2> out(CudaRecordKind::kCudaEvent,
                device_time ? clock_.ToProcess(event.deviceTimestamp) : host_.now(),
                Device16(event.deviceId), device_time ? 0 : format::kCudaEventHostTime);
  out.Set(0, format::CudaEventRecord{event.correlationId, event.streamId, event.contextId,
                                     event.eventId});
  out.Set(1, format::CudaEventSync{EventSyncId(event.cudaEventSyncId), 0});
  Emit(&out, out.words());
}

void ActivityConverter::Device(const CUpti_ActivityDevice5& device) {
  DeviceLimits limits;
  limits.compute_major = device.computeCapabilityMajor;
  limits.compute_minor = device.computeCapabilityMinor;
  limits.warp_size = device.numThreadsPerWarp == 0 ? 32 : device.numThreadsPerWarp;
  limits.max_warps_per_sm = device.maxWarpsPerMultiprocessor;
  limits.max_blocks_per_sm = device.maxBlocksPerMultiprocessor;
  limits.max_registers_per_sm = device.maxRegistersPerMultiprocessor;
  limits.max_registers_per_block = device.maxRegistersPerBlock;
  limits.max_shared_memory_per_sm = device.maxSharedMemoryPerMultiprocessor;
  limits.max_shared_memory_per_block = device.maxSharedMemoryPerBlock;
  limits.max_threads_per_block = device.maxThreadsPerBlock;
  devices_[device.id] = limits;

  Record<3> out(CudaRecordKind::kDevice, host_.now(), Device16(device.id), Intern(device.name));
  out.Set(0, format::CudaDeviceInfo{device.globalMemorySize, device.numMultiprocessors,
                                    static_cast<uint16_t>(device.computeCapabilityMajor),
                                    static_cast<uint16_t>(device.computeCapabilityMinor)});
  out.Set(1, format::CudaDeviceLimits{limits.max_warps_per_sm, limits.max_blocks_per_sm,
                                      limits.max_registers_per_sm, limits.max_registers_per_block});
  out.Set(2, format::CudaDeviceMemory{limits.max_shared_memory_per_sm,
                                      limits.max_shared_memory_per_block,
                                      limits.max_threads_per_block, limits.warp_size});
  Emit(&out, out.words());
}

void ActivityConverter::Context(const CUpti_ActivityContext3& context) {
  context_devices_[context.contextId] = context.deviceId;
  RecordHeader out{};
  out.ts = host_.now();
  out.kind = static_cast<uint8_t>(CudaRecordKind::kContext);
  out.aux = Device16(context.deviceId);
  out.arg = context.contextId;
  Emit(&out, 1);
}

uint32_t ActivityConverter::ApiName(CUpti_CallbackDomain domain, uint32_t cbid) {
  const uint64_t key = (static_cast<uint64_t>(domain) << 32) | cbid;
  auto found = api_names_.find(key);
  if (found != api_names_.end()) return found->second;
  const char* name = nullptr;
  if (api_.get_callback_name(domain, cbid, &name) != CUPTI_SUCCESS) name = nullptr;
  const uint32_t id = Intern(name);
  // A failed intern (full string table) is retried next time rather than cached as "".
  if (id != format::kEmptyStringId) api_names_.emplace(key, id);
  return id;
}

uint32_t ActivityConverter::Intern(const char* text) {
  if (text == nullptr || *text == '\0') return format::kEmptyStringId;
  return host_.intern(text, std::strlen(text));
}

void ActivityConverter::Emit(const void* record, uint32_t words) {
  if (host_.emit(record, words) != 0) {
    ++stats_.converted;
  } else {
    ++stats_.emit_refused;
  }
}

void ActivityConverter::EmitForThread(uint32_t tid, const void* record, uint32_t words) {
  if (host_.emit_for_thread(tid, record, words) != 0) {
    ++stats_.converted;
  } else {
    ++stats_.emit_refused;
  }
}

}  // namespace aiprof::cuda
