// The NVML functions the sampler calls, reached through one table (like CuptiApi) so the
// sampler runs against libnvidia-ml.so.1 or the NVML test double. This toolkit ships no
// nvml.h, so the few types used are declared here exactly as NVML's stable C ABI defines
// them (nvml.h of driver r525+; the _v2 entry points exist since r319).
#pragma once

#include <cstdint>
#include <string>

namespace aiprof::cuda {

using NvmlReturn = int;  // nvmlReturn_t; 0 = NVML_SUCCESS
inline constexpr NvmlReturn kNvmlSuccess = 0;
inline constexpr NvmlReturn kNvmlErrorNotSupported = 3;
inline constexpr NvmlReturn kNvmlErrorNoPermission = 4;

struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;  // nvmlDevice_t

struct NvmlUtilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct NvmlMemory {  // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

enum NvmlClockType : int { kNvmlClockGraphics = 0, kNvmlClockSm = 1, kNvmlClockMemory = 2 };
enum NvmlTemperatureSensor : int { kNvmlTemperatureGpu = 0 };
enum NvmlPcieCounter : int { kNvmlPcieTx = 0, kNvmlPcieRx = 1 };

struct NvmlApi {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  NvmlReturn (*device_get_count)(unsigned int* count);
  NvmlReturn (*device_get_handle_by_index)(unsigned int index, NvmlDevice* device);
  NvmlReturn (*device_get_utilization_rates)(NvmlDevice device, NvmlUtilization* utilization);
  NvmlReturn (*device_get_memory_info)(NvmlDevice device, NvmlMemory* memory);
  NvmlReturn (*device_get_power_usage)(NvmlDevice device, unsigned int* milliwatts);
  NvmlReturn (*device_get_clock_info)(NvmlDevice device, int clock_type, unsigned int* mhz);
  NvmlReturn (*device_get_temperature)(NvmlDevice device, int sensor, unsigned int* celsius);
  NvmlReturn (*device_get_pcie_throughput)(NvmlDevice device, int counter,
                                           unsigned int* kilobytes_per_second);
  const char* (*error_string)(NvmlReturn result);
};

// dlopen()s libnvidia-ml.so.1 (AIPROF_NVML_PATH first) and resolves every entry.
bool LoadNvmlApi(NvmlApi* api, std::string* error);

}  // namespace aiprof::cuda
