// RANGE PROFILER TEST DOUBLE. No GPU here, so the CUPTI range profiler and profiler host
// APIs (ProfilerApi) are played by this stand-in: it checks each call's parameters as CUPTI
// documents them (structSize, pPriv, required pointers, auto range + kernel replay), keeps
// the kernels "launched" on a context while its range profiler object is started as the
// ranges of the counter data image (at most the image's maxNumOfRanges; the rest are
// dropped and reported by DecodeData), and evaluates each range's metrics to the values the
// test gives per kernel and metric. Any call can be made to fail with a chosen CUPTI error
// (e.g. CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, as an unprivileged user gets on a real GPU).
// Contexts created later are announced through the subscribed resource callback.
#pragma once

#include <cupti.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sources/cuda/profiler_api.h"

namespace aiprof::cuda::testing {

class RangeProfilerTestDouble {
 public:
  using Values = std::function<double(const std::string& kernel, const std::string& metric)>;

  RangeProfilerTestDouble();
  ~RangeProfilerTestDouble();
  RangeProfilerTestDouble(const RangeProfilerTestDouble&) = delete;
  RangeProfilerTestDouble& operator=(const RangeProfilerTestDouble&) = delete;

  ProfilerApi api() const;

  void set_chip(const std::string& chip) { chip_ = chip; }
  void set_values(Values values) { values_ = std::move(values); }
  // `call` (e.g. "cuptiProfilerGetCounterAvailability") returns `result` from now on.
  void FailWith(const std::string& call, CUptiResult result);
  // While true, cuptiProfilerInitialize fails with CUPTI_ERROR_UNKNOWN, as CUPTI 13 does when
  // called inside cuInit (seen on an H200, driver 580).
  void set_inside_cuinit(bool inside) { inside_cuinit_ = inside; }
  int initialize_calls() const { return initialize_calls_; }
  // Initialize calls not yet matched by cuptiProfilerDeInitialize.
  int initialized() const { return initialized_; }

  // A kernel launched on `context`: a range if that context's profiler object is started.
  void LaunchKernel(CUcontext context, const std::string& name);
  // What the driver does when the application creates or destroys a context.
  void AnnounceContextCreated(CUcontext context);
  void AnnounceContextDestroying(CUcontext context);

  std::vector<std::string> configured_metrics() const;
  bool started(CUcontext context) const;
  int enabled_objects() const;
  int host_objects() const;
  bool auto_range_kernel_replay() const { return auto_range_kernel_replay_; }

 private:
  struct Object {
    CUcontext context;
    bool started = false;
    size_t max_ranges = 0;
    std::vector<std::string> launched;  // since the last Start
    std::vector<std::string> decoded;   // after Stop + DecodeData
    size_t dropped = 0;
    const uint8_t* image = nullptr;
  };
  struct Host {
    std::vector<std::string> metrics;
  };

  static RangeProfilerTestDouble* instance();
  CUptiResult Check(const char* call, size_t struct_size, const void* priv);
  Object* ByObject(CUpti_RangeProfiler_Object* object);
  Object* ByImage(const uint8_t* image);

  static CUptiResult Initialize(CUpti_Profiler_Initialize_Params*);
  static CUptiResult DeInitialize(CUpti_Profiler_DeInitialize_Params*);
  static CUptiResult GetChipName(CUpti_Device_GetChipName_Params*);
  static CUptiResult DeviceSupported(CUpti_Profiler_DeviceSupported_Params*);
  static CUptiResult GetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params*);
  static CUptiResult HostInitialize(CUpti_Profiler_Host_Initialize_Params*);
  static CUptiResult HostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params*);
  static CUptiResult ConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params*);
  static CUptiResult GetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params*);
  static CUptiResult GetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params*);
  static CUptiResult GetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params*);
  static CUptiResult EvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params*);
  static CUptiResult Enable(CUpti_RangeProfiler_Enable_Params*);
  static CUptiResult Disable(CUpti_RangeProfiler_Disable_Params*);
  static CUptiResult SetConfig(CUpti_RangeProfiler_SetConfig_Params*);
  static CUptiResult Start(CUpti_RangeProfiler_Start_Params*);
  static CUptiResult Stop(CUpti_RangeProfiler_Stop_Params*);
  static CUptiResult DecodeData(CUpti_RangeProfiler_DecodeData_Params*);
  static CUptiResult GetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params*);
  static CUptiResult CounterDataImageInitialize(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params*);
  static CUptiResult GetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params*);
  static CUptiResult GetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params*);
  static CUptiResult Subscribe(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
  static CUptiResult EnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                    CUpti_CallbackId);

  mutable std::mutex mutex_;
  std::string chip_ = "GH100";
  Values values_;
  std::map<std::string, CUptiResult> failures_;
  std::map<CUpti_RangeProfiler_Object*, std::unique_ptr<Object>> objects_;
  std::map<CUpti_Profiler_Host_Object*, std::unique_ptr<Host>> hosts_;
  CUpti_CallbackFunc callback_ = nullptr;
  void* callback_user_ = nullptr;
  bool resource_callbacks_ = false;
  bool auto_range_kernel_replay_ = false;
  bool inside_cuinit_ = false;
  int initialize_calls_ = 0;
  int initialized_ = 0;
  std::vector<std::string> configured_metrics_;
};

}  // namespace aiprof::cuda::testing
