// Samples every GPU's utilization, memory, power, clocks, temperature and PCIe throughput
// through NVML at a fixed frequency (device_sys_freq_hz) and emits them as core kCounter
// records with CounterScope::kDevice (instance = NVML device index). Runs its own thread:
// NVML calls take tens of microseconds each and must not run on an application thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sources/cuda/nvml_api.h"
#include "sources/cuda/plugin_host.h"

namespace aiprof::cuda {

// The counters, in the order they are read. Names are the counter names in the output.
enum class GpuCounter : uint8_t {
  kSmUtilization,
  kMemoryUtilization,
  kMemoryUsed,
  kMemoryTotal,
  kPower,
  kSmClock,
  kMemoryClock,
  kTemperature,
  kPcieTx,
  kPcieRx,
  kCount,
};
const char* GpuCounterName(GpuCounter counter);
const char* GpuCounterUnit(GpuCounter counter);

class NvmlSampler {
 public:
  NvmlSampler(const NvmlApi& api, const PluginHost& host) : api_(api), host_(host) {}
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // nvmlInit and device enumeration. False with a reason when NVML has no usable device.
  bool Open(std::string* error);
  // One reading of every counter of every device; counters a device does not support are
  // skipped from then on. Returns the number of counter records emitted.
  size_t SampleOnce();
  void Start(double frequency_hz);
  void Stop();
  size_t device_count() const { return devices_.size(); }

 private:
  struct Device {
    NvmlDevice handle = nullptr;
    uint32_t index = 0;
    bool unsupported[static_cast<size_t>(GpuCounter::kCount)] = {};
  };
  bool Read(Device& device, GpuCounter counter, double* value);
  void Emit(uint32_t device_index, GpuCounter counter, double value);
  void Run(std::chrono::nanoseconds period);

  const NvmlApi api_;
  const PluginHost host_;
  bool opened_ = false;
  std::vector<Device> devices_;
  uint32_t names_[static_cast<size_t>(GpuCounter::kCount)] = {};
  uint32_t units_[static_cast<size_t>(GpuCounter::kCount)] = {};

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace aiprof::cuda
