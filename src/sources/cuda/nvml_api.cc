#include "sources/cuda/nvml_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace aiprof::cuda {
namespace {

template <typename Function>
bool Resolve(void* handle, const char* symbol, Function* out, std::string* error) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    *error = std::string("libnvidia-ml has no ") + symbol;
    return false;
  }
  *out = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

bool LoadNvmlApi(NvmlApi* api, std::string* error) {
  const char* override_path = std::getenv("AIPROF_NVML_PATH");
  void* handle = nullptr;
  for (const char* candidate : {override_path, "libnvidia-ml.so.1", "libnvidia-ml.so"}) {
    if (candidate != nullptr && *candidate != '\0' &&
        (handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) != nullptr) {
      break;
    }
  }
  if (handle == nullptr) {
    *error = "cannot load libnvidia-ml.so.1 (the NVIDIA driver's NVML); GPU counters are off";
    return false;
  }
  NvmlApi loaded{};
  bool ok =
      Resolve(handle, "nvmlInit_v2", &loaded.init, error) &&
      Resolve(handle, "nvmlShutdown", &loaded.shutdown, error) &&
      Resolve(handle, "nvmlDeviceGetCount_v2", &loaded.device_get_count, error) &&
      Resolve(handle, "nvmlDeviceGetHandleByIndex_v2", &loaded.device_get_handle_by_index, error) &&
      Resolve(handle, "nvmlDeviceGetUtilizationRates", &loaded.device_get_utilization_rates,
              error) &&
      Resolve(handle, "nvmlDeviceGetMemoryInfo", &loaded.device_get_memory_info, error) &&
      Resolve(handle, "nvmlDeviceGetPowerUsage", &loaded.device_get_power_usage, error) &&
      Resolve(handle, "nvmlDeviceGetClockInfo", &loaded.device_get_clock_info, error) &&
      Resolve(handle, "nvmlDeviceGetTemperature", &loaded.device_get_temperature, error) &&
      Resolve(handle, "nvmlDeviceGetPcieThroughput", &loaded.device_get_pcie_throughput, error) &&
      Resolve(handle, "nvmlErrorString", &loaded.error_string, error);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
