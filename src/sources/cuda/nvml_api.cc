#include "sources/cuda/nvml_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "sources/cuda/symbol_resolver.h"

namespace aiprof::cuda {

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
  const SymbolResolver resolve(handle, "libnvidia-ml", "NVIDIA driver older than this NVML call",
                               error);
  NvmlApi loaded{};
  bool ok = resolve("nvmlInit_v2", &loaded.init) && resolve("nvmlShutdown", &loaded.shutdown) &&
            resolve("nvmlDeviceGetCount_v2", &loaded.device_get_count) &&
            resolve("nvmlDeviceGetHandleByIndex_v2", &loaded.device_get_handle_by_index) &&
            resolve("nvmlDeviceGetUtilizationRates", &loaded.device_get_utilization_rates) &&
            resolve("nvmlDeviceGetMemoryInfo", &loaded.device_get_memory_info) &&
            resolve("nvmlDeviceGetPowerUsage", &loaded.device_get_power_usage) &&
            resolve("nvmlDeviceGetClockInfo", &loaded.device_get_clock_info) &&
            resolve("nvmlDeviceGetTemperature", &loaded.device_get_temperature) &&
            resolve("nvmlDeviceGetPcieThroughput", &loaded.device_get_pcie_throughput) &&
            resolve("nvmlErrorString", &loaded.error_string);
  if (!ok) return false;
  *api = loaded;
  return true;
}

}  // namespace aiprof::cuda
