#include "sources/cuda/profiler_api.h"

#include <dlfcn.h>

#include "sources/cuda/cupti_api.h"

namespace aiprof::cuda {
namespace {

template <typename Function>
bool Resolve(void* handle, const char* symbol, Function* out, std::string* error) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    *error = std::string("libcupti has no ") + symbol +
             " (the CUPTI range profiler needs CUDA 12.6 or later)";
    return false;
  }
  *out = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

bool LoadProfilerApi(ProfilerApi* api, std::string* error) {
  std::string tried;
  void* handle = OpenCuptiLibrary(&tried);
  if (handle == nullptr) {
    *error = "cannot load libcupti (tried " + tried + ")";
    return false;
  }
  ProfilerApi loaded{};
  const bool ok =
      Resolve(handle, "cuptiProfilerInitialize", &loaded.profiler_initialize, error) &&
      Resolve(handle, "cuptiDeviceGetChipName", &loaded.device_get_chip_name, error) &&
      Resolve(handle, "cuptiProfilerDeviceSupported", &loaded.device_supported, error) &&
      Resolve(handle, "cuptiProfilerGetCounterAvailability", &loaded.get_counter_availability,
              error) &&
      Resolve(handle, "cuptiProfilerHostInitialize", &loaded.host_initialize, error) &&
      Resolve(handle, "cuptiProfilerHostDeinitialize", &loaded.host_deinitialize, error) &&
      Resolve(handle, "cuptiProfilerHostConfigAddMetrics", &loaded.host_config_add_metrics,
              error) &&
      Resolve(handle, "cuptiProfilerHostGetConfigImageSize", &loaded.host_get_config_image_size,
              error) &&
      Resolve(handle, "cuptiProfilerHostGetConfigImage", &loaded.host_get_config_image, error) &&
      Resolve(handle, "cuptiProfilerHostGetNumOfPasses", &loaded.host_get_num_of_passes, error) &&
      Resolve(handle, "cuptiProfilerHostEvaluateToGpuValues", &loaded.host_evaluate_to_gpu_values,
              error) &&
      Resolve(handle, "cuptiRangeProfilerEnable", &loaded.range_enable, error) &&
      Resolve(handle, "cuptiRangeProfilerDisable", &loaded.range_disable, error) &&
      Resolve(handle, "cuptiRangeProfilerSetConfig", &loaded.range_set_config, error) &&
      Resolve(handle, "cuptiRangeProfilerStart", &loaded.range_start, error) &&
      Resolve(handle, "cuptiRangeProfilerStop", &loaded.range_stop, error) &&
      Resolve(handle, "cuptiRangeProfilerDecodeData", &loaded.range_decode_data, error) &&
      Resolve(handle, "cuptiRangeProfilerGetCounterDataSize", &loaded.range_get_counter_data_size,
              error) &&
      Resolve(handle, "cuptiRangeProfilerCounterDataImageInitialize",
              &loaded.range_counter_data_image_initialize, error) &&
      Resolve(handle, "cuptiRangeProfilerGetCounterDataInfo", &loaded.range_get_counter_data_info,
              error) &&
      Resolve(handle, "cuptiRangeProfilerCounterDataGetRangeInfo",
              &loaded.range_counter_data_get_range_info, error) &&
      Resolve(handle, "cuptiSubscribe", &loaded.subscribe, error) &&
      Resolve(handle, "cuptiEnableCallback", &loaded.enable_callback, error);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
