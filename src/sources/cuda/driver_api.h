// The few CUDA driver functions the CUDA source calls itself, reached through one table like
// CuptiApi: filled from a dlopen'ed libcuda (LoadDriverApi) or by the test doubles. Used to
// record CUDA events on a stream for mstx ranges given a stream, and to find and make
// current the contexts the range profiler collects counters on.
#pragma once

#include <cuda.h>

#include <string>

namespace aiprof::cuda {

struct DriverApi {
  CUresult (*stream_get_ctx)(CUstream stream, CUcontext* context);
  CUresult (*event_create)(CUevent* event, unsigned int flags);
  CUresult (*event_record)(CUevent event, CUstream stream);
  CUresult (*event_destroy)(CUevent event);
  CUresult (*ctx_push_current)(CUcontext context);
  CUresult (*ctx_pop_current)(CUcontext* context);
  CUresult (*ctx_get_device)(CUdevice* device);
  CUresult (*device_get_count)(int* count);
  CUresult (*device_get)(CUdevice* device, int ordinal);
  CUresult (*primary_ctx_get_state)(CUdevice device, unsigned int* flags, int* active);
  CUresult (*primary_ctx_retain)(CUcontext* context, CUdevice device);
  CUresult (*primary_ctx_release)(CUdevice device);
};

// dlopen()s libcuda.so.1 (the driver is already in a CUDA process) and resolves the
// versioned symbols cuda.h names (cuCtxPushCurrent_v2, ...). False with the reason in `error`.
bool LoadDriverApi(DriverApi* api, std::string* error);

}  // namespace aiprof::cuda
