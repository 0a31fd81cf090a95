// Activity of one run of examples/cuda/cuda_workload.cu as CUPTI reports it on an H100
// (device limits from CUpti_ActivityDevice5 of an H100 SXM5 80GB, cc 9.0), built as the
// real cupti_activity.h structs and replayed through the CUPTI test double. Timestamps are
// placed in the recent past of the double's CUPTI clock.
#pragma once

#include <cupti.h>

#include <cstdint>

#include "cuda/cupti_test_double.h"

namespace aiprof::cuda::testing {

inline constexpr uint32_t kSessionDevice = 0;
inline constexpr uint32_t kSessionContext = 1;
inline constexpr uint32_t kSessionStreamA = 13;
inline constexpr uint32_t kSessionStreamB = 14;
inline constexpr uint64_t kSessionCopyBytes = 4u << 20;
inline constexpr uint32_t kSessionGraphId = 7;

// What the session holds, for assertions.
struct RecordedSession {
  uint64_t base_cupti_ns = 0;  // CUPTI-clock time of the first activity
  int kernels = 0;             // 3 direct launches + 2 graph kernels
  int graph_kernels = 0;
  int memcpys = 0;  // HtoD then DtoH
  int memsets = 0;
  int runtime_calls = 0;
  int syncs = 0;
  int allocations = 0;  // MEMORY2, 4 MiB each
  uint32_t graph_launch_correlation = 0;
  uint32_t first_kernel_correlation = 0;
  uint64_t first_kernel_start_cupti = 0;
  uint64_t first_kernel_end_cupti = 0;
};

// Records the session's activity into `cupti`. API calls are made by `app_tid`. When
// `operator_id` is nonzero, the kernel launches are made inside a framework operator whose
// id was pushed with the collector's PushExternal before calling this. `device` is the
// device record the session starts with.
CUpti_ActivityDevice5 H100Device();
RecordedSession RecordWorkloadSession(CuptiTestDouble& cupti, uint32_t app_tid,
                                      const CUpti_ActivityDevice5& device = H100Device());

// A cross-stream dependency as CUPTI reports it: a 100 µs kernel on stream A, a
// cudaEventRecord of event kWaitEventId on A, a cudaStreamWaitEvent of stream B on it (a
// SYNCHRONIZATION record of type STREAM_WAIT_EVENT naming the event), a 40 µs kernel on B
// launched right after (it starts when A's kernel ends), and a cudaStreamSynchronize of B.
// `sync_ids`: CUPTI 12.8+'s cudaEventSyncId on the event's and the wait's records.
inline constexpr uint32_t kWaitEventId = 77;
struct EventWaitSession {
  uint64_t base_cupti_ns = 0;
  uint32_t record_correlation = 0;  // of the cudaEventRecord call
  uint32_t wait_correlation = 0;    // of the cudaStreamWaitEvent call
  int64_t first_kernel_ns = 0, second_kernel_ns = 0;
};
EventWaitSession RecordEventWaitSession(CuptiTestDouble& cupti, uint32_t app_tid,
                                        bool sync_ids = true);

CUpti_ActivityKernel10 MakeKernel(const char* name, uint32_t stream, uint32_t correlation,
                                  uint64_t start, uint64_t end, int32_t grid_x, int32_t block_x,
                                  uint16_t registers, int32_t dynamic_shared);
CUpti_ActivityAPI MakeRuntimeCall(uint32_t cbid, uint32_t correlation, uint64_t start, uint64_t end,
                                  uint32_t tid);

}  // namespace aiprof::cuda::testing
