// Turns CUPTI activity records into aiprof records (src/format/records_cuda.h) and hands
// them to the runtime. Runs on whichever thread CUPTI delivers a completed buffer on; the
// collector serializes calls. Keeps the device limits and context→device map it learns
// from DEVICE and CONTEXT records so kernels get their occupancy and syncs their device.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <unordered_map>

#include "sources/cuda/clock_mapper.h"
#include "sources/cuda/cupti_api.h"
#include "sources/cuda/occupancy.h"
#include "sources/cuda/plugin_host.h"

namespace aiprof::cuda {

struct ConversionStats {
  uint64_t converted = 0;
  uint64_t emit_refused = 0;  // the runtime dropped them (counted there as well)
  uint64_t incomplete = 0;    // start or end missing (forced flush of unfinished work)
  uint64_t unhandled = 0;     // kinds the source does not convert
};

class ActivityConverter {
 public:
  ActivityConverter(const CuptiApi& api, const PluginHost& host) : api_(api), host_(host) {}

  void set_clock(const ClockMapping& clock) { clock_ = clock; }
  void Convert(const CUpti_Activity& record);
  const ConversionStats& stats() const { return stats_; }
  const DeviceLimits* device(uint32_t id) const;

 private:
  void Kernel(const CUpti_ActivityKernel10& kernel);
  void Memcpy(const CUpti_ActivityMemcpy6& copy);
  void Memset(const CUpti_ActivityMemset4& set);
  void Api(const CUpti_ActivityAPI& call, CUpti_CallbackDomain domain);
  void Synchronization(const CUpti_ActivitySynchronization2& sync);
  void Memory(const CUpti_ActivityMemory4& memory);
  void Overhead(const CUpti_ActivityOverhead3& overhead);
  void ExternalCorrelation(const CUpti_ActivityExternalCorrelation& correlation);
  void Device(const CUpti_ActivityDevice5& device);
  void Context(const CUpti_ActivityContext3& context);
  void CudaEvent(const CUpti_ActivityCudaEvent2& event);

  bool Complete(uint64_t start, uint64_t end);
  uint32_t ApiName(CUpti_CallbackDomain domain, uint32_t cbid);
  uint32_t Intern(const char* text);
  void Emit(const void* record, uint32_t words);
  void EmitForThread(uint32_t tid, const void* record, uint32_t words);

  const CuptiApi& api_;
  const PluginHost& host_;
  ClockMapping clock_;
  ConversionStats stats_;
  std::unordered_map<uint32_t, DeviceLimits> devices_;
  std::unordered_map<uint32_t, uint32_t> context_devices_;
  std::unordered_map<uint64_t, uint32_t> api_names_;
};

}  // namespace aiprof::cuda
