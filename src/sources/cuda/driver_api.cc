#include "sources/cuda/driver_api.h"

#include <dlfcn.h>

namespace aiprof::cuda {
namespace {

// cuda.h maps each API to its current ABI version with a macro (cuCtxPushCurrent →
// cuCtxPushCurrent_v2); expanding the name before stringizing it resolves that symbol.
#define AIPROF_SYMBOL_NAME(name) AIPROF_STRINGIZE(name)
#define AIPROF_STRINGIZE(name) #name

template <typename Function>
bool Resolve(void* handle, const char* symbol, Function* out, std::string* error) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    *error = std::string("libcuda has no ") + symbol + " (driver older than the CUDA 13 headers?)";
    return false;
  }
  *out = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

bool LoadDriverApi(DriverApi* api, std::string* error) {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = "cannot load libcuda.so.1 (no NVIDIA driver in this process)";
    return false;
  }
  DriverApi loaded{};
  const bool ok =
      Resolve(handle, AIPROF_SYMBOL_NAME(cuStreamGetCtx), &loaded.stream_get_ctx, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuEventCreate), &loaded.event_create, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuEventRecord), &loaded.event_record, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuEventDestroy), &loaded.event_destroy, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuCtxPushCurrent), &loaded.ctx_push_current, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuCtxPopCurrent), &loaded.ctx_pop_current, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuCtxGetDevice), &loaded.ctx_get_device, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuDeviceGetCount), &loaded.device_get_count, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuDeviceGet), &loaded.device_get, error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxGetState), &loaded.primary_ctx_get_state,
              error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxRetain), &loaded.primary_ctx_retain,
              error) &&
      Resolve(handle, AIPROF_SYMBOL_NAME(cuDevicePrimaryCtxRelease), &loaded.primary_ctx_release,
              error);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
