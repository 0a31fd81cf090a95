// NVML TEST DOUBLE. No GPU here: an NvmlApi whose devices report fixed readings (values
// as NVML returns them: power in mW, PCIe throughput in KB/s), with one counter that a
// device does not support, to test the sampler's conversion and unsupported handling.
#pragma once

#include "sources/cuda/nvml_api.h"

namespace aiprof::cuda::testing {

struct NvmlDeviceReadings {
  unsigned int sm_percent = 0;
  unsigned int memory_percent = 0;
  unsigned long long memory_used = 0;
  unsigned long long memory_total = 0;
  unsigned int power_milliwatts = 0;
  unsigned int sm_mhz = 0;
  unsigned int memory_mhz = 0;
  unsigned int temperature_c = 0;
  unsigned int pcie_tx_kbps = 0;
  unsigned int pcie_rx_kbps = 0;
  bool pcie_supported = true;
};

class NvmlTestDouble {
 public:
  static constexpr unsigned int kDevices = 2;
  NvmlTestDouble();
  ~NvmlTestDouble();
  NvmlApi api() const;
  NvmlDeviceReadings& device(unsigned int index) { return devices_[index]; }
  int pcie_queries() const { return pcie_queries_; }
  bool initialized() const { return initialized_; }

 private:
  static NvmlTestDouble* self();
  static NvmlReturn Init();
  static NvmlReturn Shutdown();
  static NvmlReturn GetCount(unsigned int* count);
  static NvmlReturn GetHandle(unsigned int index, NvmlDevice* device);
  static NvmlReturn Utilization(NvmlDevice device, NvmlUtilization* utilization);
  static NvmlReturn Memory(NvmlDevice device, NvmlMemory* memory);
  static NvmlReturn Power(NvmlDevice device, unsigned int* milliwatts);
  static NvmlReturn Clock(NvmlDevice device, int type, unsigned int* mhz);
  static NvmlReturn Temperature(NvmlDevice device, int sensor, unsigned int* celsius);
  static NvmlReturn Pcie(NvmlDevice device, int counter, unsigned int* kbps);
  static const char* ErrorString(NvmlReturn result);
  NvmlDeviceReadings& Of(NvmlDevice device);

  NvmlDeviceReadings devices_[kDevices];
  bool initialized_ = false;
  int pcie_queries_ = 0;
};

}  // namespace aiprof::cuda::testing
