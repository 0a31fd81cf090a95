#include "cuda/nvml_test_double.h"

#include <cstdint>

namespace aiprof::cuda::testing {
namespace {
NvmlTestDouble* g_nvml = nullptr;
}

NvmlTestDouble::NvmlTestDouble() {
  g_nvml = this;
}
NvmlTestDouble::~NvmlTestDouble() {
  if (g_nvml == this) g_nvml = nullptr;
}
NvmlTestDouble* NvmlTestDouble::self() {
  return g_nvml;
}

NvmlApi NvmlTestDouble::api() const {
  return NvmlApi{Init,  Shutdown, GetCount,    GetHandle, Utilization, Memory,
                 Power, Clock,    Temperature, Pcie,      ErrorString};
}

// Handles are the device index plus one, so that no handle is null.
NvmlDeviceReadings& NvmlTestDouble::Of(NvmlDevice device) {
  return devices_[reinterpret_cast<uintptr_t>(device) - 1];
}

NvmlReturn NvmlTestDouble::Init() {
  self()->initialized_ = true;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Shutdown() {
  self()->initialized_ = false;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::GetCount(unsigned int* count) {
  *count = kDevices;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::GetHandle(unsigned int index, NvmlDevice* device) {
  *device = reinterpret_cast<NvmlDevice>(static_cast<uintptr_t>(index) + 1);
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Utilization(NvmlDevice device, NvmlUtilization* utilization) {
  utilization->gpu = self()->Of(device).sm_percent;
  utilization->memory = self()->Of(device).memory_percent;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Memory(NvmlDevice device, NvmlMemory* memory) {
  const NvmlDeviceReadings& readings = self()->Of(device);
  memory->total = readings.memory_total;
  memory->used = readings.memory_used;
  memory->free = readings.memory_total - readings.memory_used;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Power(NvmlDevice device, unsigned int* milliwatts) {
  *milliwatts = self()->Of(device).power_milliwatts;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Clock(NvmlDevice device, int type, unsigned int* mhz) {
  *mhz = type == kNvmlClockMemory ? self()->Of(device).memory_mhz : self()->Of(device).sm_mhz;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Temperature(NvmlDevice device, int, unsigned int* celsius) {
  *celsius = self()->Of(device).temperature_c;
  return kNvmlSuccess;
}
NvmlReturn NvmlTestDouble::Pcie(NvmlDevice device, int counter, unsigned int* kbps) {
  ++self()->pcie_queries_;
  const NvmlDeviceReadings& readings = self()->Of(device);
  if (!readings.pcie_supported) return kNvmlErrorNotSupported;
  *kbps = counter == kNvmlPcieTx ? readings.pcie_tx_kbps : readings.pcie_rx_kbps;
  return kNvmlSuccess;
}
const char* NvmlTestDouble::ErrorString(NvmlReturn result) {
  return result == kNvmlErrorNotSupported ? "Not Supported" : "NVML test double error";
}

}  // namespace aiprof::cuda::testing
