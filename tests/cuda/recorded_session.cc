#include "cuda/recorded_session.h"

#include <cupti_runtime_cbid.h>
#include <unistd.h>

namespace aiprof::cuda::testing {
namespace {

constexpr uint64_t kUs = 1000;

CUpti_ActivityMemcpy6 MakeCopy(uint8_t copy_kind, uint8_t src, uint8_t dst, uint32_t stream,
                               uint32_t correlation, uint64_t start, uint64_t end) {
  CUpti_ActivityMemcpy6 copy{};
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = copy_kind;
  copy.srcKind = src;
  copy.dstKind = dst;
  copy.bytes = kSessionCopyBytes;
  copy.start = start;
  copy.end = end;
  copy.deviceId = kSessionDevice;
  copy.contextId = kSessionContext;
  copy.streamId = stream;
  copy.correlationId = correlation;
  return copy;
}

}  // namespace

CUpti_ActivityDevice5 H100Device() {
  CUpti_ActivityDevice5 device{};
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  device.globalMemoryBandwidth = 3352320000;  // kHz-bits as CUPTI reports it
  device.globalMemorySize = 85021163520;
  device.constantMemorySize = 65536;
  device.l2CacheSize = 52428800;
  device.numThreadsPerWarp = 32;
  device.coreClockRate = 1980000;
  device.numMemcpyEngines = 5;
  device.numMultiprocessors = 132;
  device.maxIPC = 4;
  device.maxWarpsPerMultiprocessor = 64;
  device.maxBlocksPerMultiprocessor = 32;
  device.maxSharedMemoryPerMultiprocessor = 233472;
  device.maxRegistersPerMultiprocessor = 65536;
  device.maxRegistersPerBlock = 65536;
  device.maxSharedMemoryPerBlock = 49152;
  device.maxThreadsPerBlock = 1024;
  device.maxBlockDimX = 1024;
  device.maxBlockDimY = 1024;
  device.maxBlockDimZ = 64;
  device.maxGridDimX = 2147483647;
  device.maxGridDimY = 65535;
  device.maxGridDimZ = 65535;
  device.computeCapabilityMajor = 9;
  device.computeCapabilityMinor = 0;
  device.id = kSessionDevice;
  device.name = "NVIDIA H100 80GB HBM3";
  device.isCudaVisible = 1;
  return device;
}

CUpti_ActivityKernel10 MakeKernel(const char* name, uint32_t stream, uint32_t correlation,
                                  uint64_t start, uint64_t end, int32_t grid_x, int32_t block_x,
                                  uint16_t registers, int32_t dynamic_shared) {
  CUpti_ActivityKernel10 kernel{};
  kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  kernel.registersPerThread = registers;
  kernel.start = start;
  kernel.end = end;
  kernel.completed = end;
  kernel.deviceId = kSessionDevice;
  kernel.contextId = kSessionContext;
  kernel.streamId = stream;
  kernel.gridX = grid_x;
  kernel.gridY = 1;
  kernel.gridZ = 1;
  kernel.blockX = block_x;
  kernel.blockY = 1;
  kernel.blockZ = 1;
  kernel.staticSharedMemory = 0;
  kernel.dynamicSharedMemory = dynamic_shared;
  kernel.correlationId = correlation;
  kernel.gridId = correlation;
  kernel.name = name;
  kernel.sharedMemoryExecuted = 233472;
  return kernel;
}

CUpti_ActivityAPI MakeRuntimeCall(uint32_t cbid, uint32_t correlation, uint64_t start, uint64_t end,
                                  uint32_t tid) {
  CUpti_ActivityAPI call{};
  call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  call.cbid = cbid;
  call.start = start;
  call.end = end;
  call.processId = static_cast<uint32_t>(getpid());
  call.threadId = tid;
  call.correlationId = correlation;
  return call;
}

RecordedSession RecordWorkloadSession(CuptiTestDouble& cupti, uint32_t app_tid,
                                      const CUpti_ActivityDevice5& device) {
  RecordedSession session;
  const uint64_t t0 = cupti.cupti_now() - 50'000 * kUs;
  session.base_cupti_ns = t0;

  cupti.Record(device);
  CUpti_ActivityContext3 context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  context.contextId = kSessionContext;
  context.deviceId = kSessionDevice;
  context.nullStreamId = 7;
  cupti.Record(context);

  // cudaMalloc of the three 4 MiB device buffers (MEMORY2, recorded when enabled).
  for (uint32_t buffer = 0; buffer < 3; ++buffer) {
    CUpti_ActivityMemory4 allocation{};
    allocation.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    allocation.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    allocation.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    allocation.correlationId = 90 + buffer;
    allocation.address = 0x7f0000000000ull + buffer * kSessionCopyBytes;
    allocation.bytes = kSessionCopyBytes;
    allocation.timestamp = t0 + (1 + buffer) * kUs;
    allocation.processId = static_cast<uint32_t>(getpid());
    allocation.deviceId = kSessionDevice;
    allocation.contextId = kSessionContext;
    cupti.Record(allocation);
    ++session.allocations;
  }

  // cudaMemcpyAsync HtoD (pageable) on stream A.
  cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 101,
                                  t0 + 10 * kUs, t0 + 40 * kUs, app_tid));
  cupti.Record(MakeCopy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, kSessionStreamA, 101, t0 + 30 * kUs,
                        t0 + 380 * kUs));
  // Three launches: two on stream A, one on stream B.
  struct Launch {
    const char* name;
    uint32_t stream;
    uint32_t correlation;
    uint64_t api_start, kernel_start, kernel_end;
    int32_t grid, block;
    uint16_t registers;
    int32_t dynamic_shared;
  };
  const Launch launches[] = {
      {"_Z5scalePffi", kSessionStreamA, 102, 50, 400, 460, 4096, 256, 16, 0},
      {"_Z3addPKfS0_Pfi", kSessionStreamB, 103, 60, 410, 470, 4096, 256, 18, 0},
      {"_Z6reducePKfPfi", kSessionStreamA, 104, 70, 470, 530, 1024, 512, 32, 2048},
  };
  for (const Launch& launch : launches) {
    cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                    launch.correlation, t0 + launch.api_start * kUs,
                                    t0 + (launch.api_start + 5) * kUs, app_tid));
    cupti.Record(MakeKernel(launch.name, launch.stream, launch.correlation,
                            t0 + launch.kernel_start * kUs, t0 + launch.kernel_end * kUs,
                            launch.grid, launch.block, launch.registers, launch.dynamic_shared));
    ++session.kernels;
    ++session.runtime_calls;
  }
  session.first_kernel_correlation = 102;
  session.first_kernel_start_cupti = t0 + 400 * kUs;
  session.first_kernel_end_cupti = t0 + 460 * kUs;

  // One cudaGraphLaunch of a two-node graph: both kernels share the launch's correlation id
  // and differ in graph node id.
  session.graph_launch_correlation = 105;
  cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 105,
                                  t0 + 80 * kUs, t0 + 95 * kUs, app_tid));
  for (uint64_t node = 0; node < 2; ++node) {
    CUpti_ActivityKernel10 kernel =
        MakeKernel(node == 0 ? "_Z5scalePffi" : "_Z3addPKfS0_Pfi", kSessionStreamB, 105,
                   t0 + (540 + node * 70) * kUs, t0 + (600 + node * 70) * kUs, 4096, 256, 16, 0);
    kernel.graphId = kSessionGraphId;
    kernel.graphNodeId = 0x100000000ull + node;
    cupti.Record(kernel);
    ++session.kernels;
    ++session.graph_kernels;
  }
  ++session.runtime_calls;

  // cudaMemsetAsync on stream B, then DtoH on stream A, then cudaStreamSynchronize(A).
  cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, 106,
                                  t0 + 100 * kUs, t0 + 104 * kUs, app_tid));
  CUpti_ActivityMemset4 set{};
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.bytes = kSessionCopyBytes;
  set.start = t0 + 680 * kUs;
  set.end = t0 + 690 * kUs;
  set.deviceId = kSessionDevice;
  set.contextId = kSessionContext;
  set.streamId = kSessionStreamB;
  set.correlationId = 106;
  set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  cupti.Record(set);
  ++session.memsets;
  ++session.runtime_calls;

  cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 107,
                                  t0 + 110 * kUs, t0 + 115 * kUs, app_tid));
  cupti.Record(MakeCopy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED, kSessionStreamA, 107, t0 + 700 * kUs,
                        t0 + 880 * kUs));
  session.memcpys = 2;
  session.runtime_calls += 2;

  cupti.RecordApi(MakeRuntimeCall(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 108,
                                  t0 + 120 * kUs, t0 + 885 * kUs, app_tid));
  CUpti_ActivitySynchronization2 sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = t0 + 121 * kUs;
  sync.end = t0 + 884 * kUs;
  sync.correlationId = 108;
  sync.contextId = kSessionContext;
  sync.streamId = kSessionStreamA;
  cupti.Record(sync);
  ++session.syncs;
  ++session.runtime_calls;

  CUpti_ActivityOverhead3 overhead{};
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  overhead.objectId.pt.threadId = app_tid;
  overhead.start = t0 + 900 * kUs;
  overhead.end = t0 + 912 * kUs;
  cupti.Record(overhead);
  return session;
}

EventWaitSession RecordEventWaitSession(CuptiTestDouble& cupti, uint32_t app_tid, bool sync_ids) {
  EventWaitSession session;
  const uint64_t t0 = cupti.cupti_now() - 50'000 * kUs;
  session.base_cupti_ns = t0;
  cupti.Record(H100Device());
  CUpti_ActivityContext3 context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  context.contextId = kSessionContext;
  context.deviceId = kSessionDevice;
  context.nullStreamId = 7;
  cupti.Record(context);
  const auto call = [&](uint32_t cbid, uint32_t correlation, uint64_t start_us, uint64_t end_us) {
    cupti.RecordApi(
        MakeRuntimeCall(cbid, correlation, t0 + start_us * kUs, t0 + end_us * kUs, app_tid));
  };
  call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 201, 0, 5);
  cupti.Record(MakeKernel("_Z8producerPf", kSessionStreamA, 201, t0 + 10 * kUs, t0 + 110 * kUs,
                          1024, 256, 32, 0));
  session.first_kernel_ns = 100'000;
  session.record_correlation = 202;
  call(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 202, 6, 8);
  CUpti_ActivityCudaEvent2 event{};
  event.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  event.correlationId = 202;
  event.contextId = kSessionContext;
  event.streamId = kSessionStreamA;
  event.eventId = kWaitEventId;
  event.deviceId = kSessionDevice;
  event.cudaEventSyncId = sync_ids ? 5001 : 0;
  cupti.Record(event);
  session.wait_correlation = 203;
  call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 203, 9, 11);
  CUpti_ActivitySynchronization2 wait{};
  wait.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  wait.start = t0 + 9 * kUs;
  wait.end = t0 + 11 * kUs;
  wait.correlationId = 203;
  wait.contextId = kSessionContext;
  wait.streamId = kSessionStreamB;
  wait.cudaEventId = kWaitEventId;
  wait.cudaEventSyncId = sync_ids ? 5001 : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  cupti.Record(wait);
  call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 204, 12, 15);
  cupti.Record(MakeKernel("_Z8consumerPf", kSessionStreamB, 204, t0 + 111 * kUs, t0 + 151 * kUs,
                          1024, 256, 32, 0));
  session.second_kernel_ns = 40'000;
  call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 205, 16, 153);
  CUpti_ActivitySynchronization2 sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = t0 + 17 * kUs;
  sync.end = t0 + 152 * kUs;
  sync.correlationId = 205;
  sync.contextId = kSessionContext;
  sync.streamId = kSessionStreamB;
  sync.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  sync.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  cupti.Record(sync);
  return session;
}

}  // namespace aiprof::cuda::testing
