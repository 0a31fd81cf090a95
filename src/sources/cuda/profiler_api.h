// The CUPTI profiling functions the kernel metrics use (range profiler: cupti_range_profiler.h,
// host metric evaluation: cupti_profiler_host.h, target setup: cupti_profiler_target.h and
// cupti_target.h), plus the callback API to hear of new contexts. One table like CuptiApi:
// filled from the dlopen'ed libcupti (LoadProfilerApi) or by the range profiler test double.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>

namespace aiprof::cuda {

struct ProfilerApi {
  CUptiResult (*profiler_initialize)(CUpti_Profiler_Initialize_Params*);
  CUptiResult (*profiler_deinitialize)(CUpti_Profiler_DeInitialize_Params*);
  CUptiResult (*device_get_chip_name)(CUpti_Device_GetChipName_Params*);
  CUptiResult (*device_supported)(CUpti_Profiler_DeviceSupported_Params*);
  CUptiResult (*get_counter_availability)(CUpti_Profiler_GetCounterAvailability_Params*);

  CUptiResult (*host_initialize)(CUpti_Profiler_Host_Initialize_Params*);
  CUptiResult (*host_deinitialize)(CUpti_Profiler_Host_Deinitialize_Params*);
  CUptiResult (*host_config_add_metrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*);
  CUptiResult (*host_get_config_image_size)(CUpti_Profiler_Host_GetConfigImageSize_Params*);
  CUptiResult (*host_get_config_image)(CUpti_Profiler_Host_GetConfigImage_Params*);
  CUptiResult (*host_get_num_of_passes)(CUpti_Profiler_Host_GetNumOfPasses_Params*);
  CUptiResult (*host_evaluate_to_gpu_values)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*);

  CUptiResult (*range_enable)(CUpti_RangeProfiler_Enable_Params*);
  CUptiResult (*range_disable)(CUpti_RangeProfiler_Disable_Params*);
  CUptiResult (*range_set_config)(CUpti_RangeProfiler_SetConfig_Params*);
  CUptiResult (*range_start)(CUpti_RangeProfiler_Start_Params*);
  CUptiResult (*range_stop)(CUpti_RangeProfiler_Stop_Params*);
  CUptiResult (*range_decode_data)(CUpti_RangeProfiler_DecodeData_Params*);
  CUptiResult (*range_get_counter_data_size)(CUpti_RangeProfiler_GetCounterDataSize_Params*);
  CUptiResult (*range_counter_data_image_initialize)(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params*);
  CUptiResult (*range_get_counter_data_info)(CUpti_RangeProfiler_GetCounterDataInfo_Params*);
  CUptiResult (*range_counter_data_get_range_info)(
      CUpti_RangeProfiler_CounterData_GetRangeInfo_Params*);

  CUptiResult (*subscribe)(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                           void* user_data);
  CUptiResult (*enable_callback)(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                 CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
};

// Resolves the table from libcupti (the same library LoadCuptiApi opens). False with the
// missing library or symbol in `error` (CUPTI older than the range profiler of CUDA 12.6).
bool LoadProfilerApi(ProfilerApi* api, std::string* error);

}  // namespace aiprof::cuda
