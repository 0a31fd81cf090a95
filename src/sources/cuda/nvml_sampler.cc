#include "sources/cuda/nvml_sampler.h"

#include <chrono>
#include <cstring>

#include "format/records.h"

namespace aiprof::cuda {

const char* GpuCounterName(GpuCounter counter) {
  switch (counter) {
    case GpuCounter::kSmUtilization:
      return "GPU Utilization";
    case GpuCounter::kMemoryUtilization:
      return "GPU Memory Utilization";
    case GpuCounter::kMemoryUsed:
      return "GPU Memory Used";
    case GpuCounter::kMemoryTotal:
      return "GPU Memory Total";
    case GpuCounter::kPower:
      return "GPU Power";
    case GpuCounter::kSmClock:
      return "GPU SM Clock";
    case GpuCounter::kMemoryClock:
      return "GPU Memory Clock";
    case GpuCounter::kTemperature:
      return "GPU Temperature";
    case GpuCounter::kPcieTx:
      return "GPU PCIe TX";
    case GpuCounter::kPcieRx:
      return "GPU PCIe RX";
    case GpuCounter::kCount:
      break;
  }
  return "";
}

const char* GpuCounterUnit(GpuCounter counter) {
  switch (counter) {
    case GpuCounter::kSmUtilization:
    case GpuCounter::kMemoryUtilization:
      return "%";
    case GpuCounter::kMemoryUsed:
    case GpuCounter::kMemoryTotal:
      return "bytes";
    case GpuCounter::kPower:
      return "W";
    case GpuCounter::kSmClock:
    case GpuCounter::kMemoryClock:
      return "MHz";
    case GpuCounter::kTemperature:
      return "C";
    case GpuCounter::kPcieTx:
    case GpuCounter::kPcieRx:
      return "bytes/s";
    case GpuCounter::kCount:
      break;
  }
  return "";
}

NvmlSampler::~NvmlSampler() {
  Stop();
  if (opened_) api_.shutdown();
}

bool NvmlSampler::Open(std::string* error) {
  if (opened_) return true;
  NvmlReturn result = api_.init();
  if (result != kNvmlSuccess) {
    *error = std::string("nvmlInit failed: ") + api_.error_string(result);
    return false;
  }
  opened_ = true;
  unsigned int count = 0;
  result = api_.device_get_count(&count);
  if (result != kNvmlSuccess || count == 0) {
    *error = result != kNvmlSuccess
                 ? std::string("nvmlDeviceGetCount failed: ") + api_.error_string(result)
                 : std::string("NVML sees no GPU");
    return false;
  }
  for (unsigned int index = 0; index < count; ++index) {
    Device device;
    device.index = index;
    if (api_.device_get_handle_by_index(index, &device.handle) == kNvmlSuccess) {
      devices_.push_back(device);
    }
  }
  for (size_t counter = 0; counter < static_cast<size_t>(GpuCounter::kCount); ++counter) {
    const char* name = GpuCounterName(static_cast<GpuCounter>(counter));
    const char* unit = GpuCounterUnit(static_cast<GpuCounter>(counter));
    names_[counter] = host_.intern(name, std::strlen(name));
    units_[counter] = host_.intern(unit, std::strlen(unit));
  }
  if (devices_.empty()) *error = "NVML returned no device handle";
  return !devices_.empty();
}

bool NvmlSampler::Read(Device& device, GpuCounter counter, double* value) {
  NvmlReturn result = kNvmlSuccess;
  unsigned int reading = 0;
  switch (counter) {
    case GpuCounter::kSmUtilization:
    case GpuCounter::kMemoryUtilization: {
      NvmlUtilization utilization{};
      result = api_.device_get_utilization_rates(device.handle, &utilization);
      reading = counter == GpuCounter::kSmUtilization ? utilization.gpu : utilization.memory;
      *value = reading;
      break;
    }
    case GpuCounter::kMemoryUsed:
    case GpuCounter::kMemoryTotal: {
      NvmlMemory memory{};
      result = api_.device_get_memory_info(device.handle, &memory);
      *value = static_cast<double>(counter == GpuCounter::kMemoryUsed ? memory.used : memory.total);
      break;
    }
    case GpuCounter::kPower:
      result = api_.device_get_power_usage(device.handle, &reading);
      *value = reading / 1000.0;
      break;
    case GpuCounter::kSmClock:
      result = api_.device_get_clock_info(device.handle, kNvmlClockSm, &reading);
      *value = reading;
      break;
    case GpuCounter::kMemoryClock:
      result = api_.device_get_clock_info(device.handle, kNvmlClockMemory, &reading);
      *value = reading;
      break;
    case GpuCounter::kTemperature:
      result = api_.device_get_temperature(device.handle, kNvmlTemperatureGpu, &reading);
      *value = reading;
      break;
    case GpuCounter::kPcieTx:
    case GpuCounter::kPcieRx:
      result = api_.device_get_pcie_throughput(
          device.handle, counter == GpuCounter::kPcieTx ? kNvmlPcieTx : kNvmlPcieRx, &reading);
      *value = reading * 1024.0;
      break;
    case GpuCounter::kCount:
      return false;
  }
  if (result == kNvmlErrorNotSupported || result == kNvmlErrorNoPermission) {
    device.unsupported[static_cast<size_t>(counter)] = true;
  }
  return result == kNvmlSuccess;
}

void NvmlSampler::Emit(uint32_t device_index, GpuCounter counter, double value) {
  struct {
    format::RecordHeader header;
    format::CounterValue value;
  } record{};
  record.header.ts = host_.now();
  record.header.kind = static_cast<uint8_t>(format::RecordKind::kCounter);
  record.header.ext_words = 1;
  record.header.aux = static_cast<uint16_t>(format::CounterScope::kDevice);
  record.header.arg = names_[static_cast<size_t>(counter)];
  record.value = format::CounterValue{value, device_index, units_[static_cast<size_t>(counter)]};
  host_.emit(&record, 2);
}

size_t NvmlSampler::SampleOnce() {
  size_t emitted = 0;
  for (Device& device : devices_) {
    for (size_t index = 0; index < static_cast<size_t>(GpuCounter::kCount); ++index) {
      if (device.unsupported[index]) continue;
      const auto counter = static_cast<GpuCounter>(index);
      double value = 0;
      if (Read(device, counter, &value)) {
        Emit(device.index, counter, value);
        ++emitted;
      }
    }
  }
  return emitted;
}

void NvmlSampler::Start(double frequency_hz) {
  if (thread_.joinable() || devices_.empty() || frequency_hz <= 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
  }
  const auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / frequency_hz));
  thread_ = std::thread([this, period] { Run(period); });
}

void NvmlSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void NvmlSampler::Run(std::chrono::nanoseconds period) {
  auto next = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    SampleOnce();
    lock.lock();
    next += period;
    wake_.wait_until(lock, next, [this] { return stopping_; });
  }
}

}  // namespace aiprof::cuda
