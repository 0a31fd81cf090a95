#include "sources/cuda/driver_api.h"

#include <dlfcn.h>

#include "sources/cuda/symbol_resolver.h"

namespace aiprof::cuda {
namespace {

// cuda.h maps each API to its current ABI version with a macro (cuCtxPushCurrent →
// cuCtxPushCurrent_v2); expanding the name before stringizing it resolves that symbol.
#define AIPROF_SYMBOL_NAME(name) AIPROF_STRINGIZE(name)
#define AIPROF_STRINGIZE(name) #name

}  // namespace

bool LoadDriverApi(DriverApi* api, std::string* error) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = "cannot load libcuda.so.1 (no NVIDIA driver in this process)";
    return false;
  }
  const SymbolResolver resolve(handle, "libcuda", "driver older than the CUDA 13 headers?", error);
  DriverApi loaded{};
  const bool ok =
      resolve(AIPROF_SYMBOL_NAME(cuStreamGetCtx), &loaded.stream_get_ctx) &&
      resolve(AIPROF_SYMBOL_NAME(cuEventCreate), &loaded.event_create) &&
      resolve(AIPROF_SYMBOL_NAME(cuEventRecord), &loaded.event_record) &&
      resolve(AIPROF_SYMBOL_NAME(cuEventDestroy), &loaded.event_destroy) &&
      resolve(AIPROF_SYMBOL_NAME(cuCtxPushCurrent), &loaded.ctx_push_current) &&
      resolve(AIPROF_SYMBOL_NAME(cuCtxPopCurrent), &loaded.ctx_pop_current) &&
      resolve(AIPROF_SYMBOL_NAME(cuCtxGetDevice), &loaded.ctx_get_device) &&
      resolve(AIPROF_SYMBOL_NAME(cuDeviceGetCount), &loaded.device_get_count) &&
      resolve(AIPROF_SYMBOL_NAME(cuDeviceGet), &loaded.device_get) &&
      resolve(AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxGetState), &loaded.primary_ctx_get_state) &&
      resolve(AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxRetain), &loaded.primary_ctx_retain) &&
      resolve(AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxRelease), &loaded.primary_ctx_release);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
