#include "sources/cuda/profiler_api.h"

#include "sources/cuda/cupti_api.h"
#include "sources/cuda/symbol_resolver.h"

namespace aiprof::cuda {

bool LoadProfilerApi(ProfilerApi* api, std::string* error) {
  std::string tried;
  void* handle = OpenCuptiLibrary(&tried);
  if (handle == nullptr) {
    *error = "cannot load libcupti (tried " + tried + ")";
    return false;
  }
  const SymbolResolver resolve(handle, "libcupti",
                               "the CUPTI range profiler needs CUDA 12.6 or later", error);
  ProfilerApi loaded{};
  const bool ok =
      resolve("cuptiProfilerInitialize", &loaded.profiler_initialize) &&
      resolve("cuptiProfilerDeInitialize", &loaded.profiler_deinitialize) &&
      resolve("cuptiDeviceGetChipName", &loaded.device_get_chip_name) &&
      resolve("cuptiProfilerDeviceSupported", &loaded.device_supported) &&
      resolve("cuptiProfilerGetCounterAvailability", &loaded.get_counter_availability) &&
      resolve("cuptiProfilerHostInitialize", &loaded.host_initialize) &&
      resolve("cuptiProfilerHostDeinitialize", &loaded.host_deinitialize) &&
      resolve("cuptiProfilerHostConfigAddMetrics", &loaded.host_config_add_metrics) &&
      resolve("cuptiProfilerHostGetConfigImageSize", &loaded.host_get_config_image_size) &&
      resolve("cuptiProfilerHostGetConfigImage", &loaded.host_get_config_image) &&
      resolve("cuptiProfilerHostGetNumOfPasses", &loaded.host_get_num_of_passes) &&
      resolve("cuptiProfilerHostEvaluateToGpuValues", &loaded.host_evaluate_to_gpu_values) &&
      resolve("cuptiRangeProfilerEnable", &loaded.range_enable) &&
      resolve("cuptiRangeProfilerDisable", &loaded.range_disable) &&
      resolve("cuptiRangeProfilerSetConfig", &loaded.range_set_config) &&
      resolve("cuptiRangeProfilerStart", &loaded.range_start) &&
      resolve("cuptiRangeProfilerStop", &loaded.range_stop) &&
      resolve("cuptiRangeProfilerDecodeData", &loaded.range_decode_data) &&
      resolve("cuptiRangeProfilerGetCounterDataSize", &loaded.range_get_counter_data_size) &&
      resolve("cuptiRangeProfilerCounterDataImageInitialize",
              &loaded.range_counter_data_image_initialize) &&
      resolve("cuptiRangeProfilerGetCounterDataInfo", &loaded.range_get_counter_data_info) &&
      resolve("cuptiRangeProfilerCounterDataGetRangeInfo",
              &loaded.range_counter_data_get_range_info) &&
      resolve("cuptiSubscribe", &loaded.subscribe) &&
      resolve("cuptiEnableCallback", &loaded.enable_callback);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
