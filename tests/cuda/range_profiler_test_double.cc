#include "cuda/range_profiler_test_double.h"

#include <algorithm>
#include <cstring>

namespace aiprof::cuda::testing {
namespace {

RangeProfilerTestDouble* g_instance = nullptr;
constexpr size_t kConfigHeader = 16;
constexpr size_t kBytesPerRange = 64;

}  // namespace

RangeProfilerTestDouble::RangeProfilerTestDouble() {
  g_instance = this;
  values_ = [](const std::string&, const std::string&) { return 0.0; };
}

RangeProfilerTestDouble::~RangeProfilerTestDouble() {
  if (g_instance == this) g_instance = nullptr;
}

RangeProfilerTestDouble* RangeProfilerTestDouble::instance() {
  return g_instance;
}

ProfilerApi RangeProfilerTestDouble::api() const {
  ProfilerApi api{};
  api.profiler_initialize = Initialize;
  api.profiler_deinitialize = DeInitialize;
  api.device_get_chip_name = GetChipName;
  api.device_supported = DeviceSupported;
  api.get_counter_availability = GetCounterAvailability;
  api.host_initialize = HostInitialize;
  api.host_deinitialize = HostDeinitialize;
  api.host_config_add_metrics = ConfigAddMetrics;
  api.host_get_config_image_size = GetConfigImageSize;
  api.host_get_config_image = GetConfigImage;
  api.host_get_num_of_passes = GetNumOfPasses;
  api.host_evaluate_to_gpu_values = EvaluateToGpuValues;
  api.range_enable = Enable;
  api.range_disable = Disable;
  api.range_set_config = SetConfig;
  api.range_start = Start;
  api.range_stop = Stop;
  api.range_decode_data = DecodeData;
  api.range_get_counter_data_size = GetCounterDataSize;
  api.range_counter_data_image_initialize = CounterDataImageInitialize;
  api.range_get_counter_data_info = GetCounterDataInfo;
  api.range_counter_data_get_range_info = GetRangeInfo;
  api.subscribe = Subscribe;
  api.enable_callback = EnableCallback;
  return api;
}

void RangeProfilerTestDouble::FailWith(const std::string& call, CUptiResult result) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_[call] = result;
}

void RangeProfilerTestDouble::LaunchKernel(CUcontext context, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [handle, object] : objects_) {
    if (object->context != context || !object->started) continue;
    if (object->launched.size() < object->max_ranges) {
      object->launched.push_back(name);
    } else {
      ++object->dropped;
    }
  }
}

void RangeProfilerTestDouble::AnnounceContextCreated(CUcontext context) {
  CUpti_CallbackFunc callback = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!resource_callbacks_) return;
    callback = callback_;
    user = callback_user_;
  }
  CUpti_ResourceData data{};
  data.context = context;
  callback(user, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
}

void RangeProfilerTestDouble::AnnounceContextDestroying(CUcontext context) {
  CUpti_CallbackFunc callback = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!resource_callbacks_) return;
    callback = callback_;
    user = callback_user_;
  }
  CUpti_ResourceData data{};
  data.context = context;
  callback(user, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &data);
}

std::vector<std::string> RangeProfilerTestDouble::configured_metrics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return configured_metrics_;
}

bool RangeProfilerTestDouble::started(CUcontext context) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::any_of(objects_.begin(), objects_.end(), [&](const auto& entry) {
    return entry.second->context == context && entry.second->started;
  });
}

int RangeProfilerTestDouble::enabled_objects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(objects_.size());
}

int RangeProfilerTestDouble::host_objects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(hosts_.size());
}

CUptiResult RangeProfilerTestDouble::Check(const char* call, size_t struct_size, const void* priv) {
  auto failure = failures_.find(call);
  if (failure != failures_.end()) return failure->second;
  if (struct_size == 0 || priv != nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  return CUPTI_SUCCESS;
}

RangeProfilerTestDouble::Object* RangeProfilerTestDouble::ByObject(
    CUpti_RangeProfiler_Object* handle) {
  auto found = objects_.find(handle);
  return found == objects_.end() ? nullptr : found->second.get();
}

RangeProfilerTestDouble::Object* RangeProfilerTestDouble::ByImage(const uint8_t* image) {
  for (auto& [handle, object] : objects_) {
    if (object->image == image) return object.get();
  }
  return nullptr;
}

#define AIPROF_CHECK(call, params)                                                    \
  RangeProfilerTestDouble* self = instance();                                         \
  std::lock_guard<std::mutex> lock(self->mutex_);                                     \
  if (CUptiResult checked = self->Check(call, (params)->structSize, (params)->pPriv); \
      checked != CUPTI_SUCCESS) {                                                     \
    return checked;                                                                   \
  }

CUptiResult RangeProfilerTestDouble::Initialize(CUpti_Profiler_Initialize_Params* params) {
  AIPROF_CHECK("cuptiProfilerInitialize", params);
  ++self->initialize_calls_;
  if (self->inside_cuinit_) return CUPTI_ERROR_UNKNOWN;
  ++self->initialized_;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::DeInitialize(CUpti_Profiler_DeInitialize_Params* params) {
  AIPROF_CHECK("cuptiProfilerDeInitialize", params);
  if (self->initialized_ == 0) return CUPTI_ERROR_NOT_INITIALIZED;
  --self->initialized_;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetChipName(CUpti_Device_GetChipName_Params* params) {
  AIPROF_CHECK("cuptiDeviceGetChipName", params);
  params->pChipName = self->chip_.c_str();
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::DeviceSupported(
    CUpti_Profiler_DeviceSupported_Params* params) {
  AIPROF_CHECK("cuptiProfilerDeviceSupported", params);
  params->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetCounterAvailability(
    CUpti_Profiler_GetCounterAvailability_Params* params) {
  AIPROF_CHECK("cuptiProfilerGetCounterAvailability", params);
  if (params->ctx == nullptr) return CUPTI_ERROR_INVALID_CONTEXT;
  constexpr size_t kImageSize = 64;
  if (params->pCounterAvailabilityImage == nullptr) {
    params->counterAvailabilityImageSize = kImageSize;
    return CUPTI_SUCCESS;
  }
  if (params->counterAvailabilityImageSize < kImageSize) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(params->pCounterAvailabilityImage, 0xff, kImageSize);
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::HostInitialize(CUpti_Profiler_Host_Initialize_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostInitialize", params);
  if (params->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || params->pChipName == nullptr ||
      self->chip_ != params->pChipName) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  auto host = std::make_unique<Host>();
  params->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object*>(host.get());
  self->hosts_[params->pHostObject] = std::move(host);
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::HostDeinitialize(
    CUpti_Profiler_Host_Deinitialize_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostDeinitialize", params);
  return self->hosts_.erase(params->pHostObject) == 1 ? CUPTI_SUCCESS
                                                      : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult RangeProfilerTestDouble::ConfigAddMetrics(
    CUpti_Profiler_Host_ConfigAddMetrics_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostConfigAddMetrics", params);
  auto host = self->hosts_.find(params->pHostObject);
  if (host == self->hosts_.end() || params->ppMetricNames == nullptr || params->numMetrics == 0) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  for (size_t i = 0; i < params->numMetrics; ++i) {
    host->second->metrics.emplace_back(params->ppMetricNames[i]);
  }
  self->configured_metrics_ = host->second->metrics;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetConfigImageSize(
    CUpti_Profiler_Host_GetConfigImageSize_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostGetConfigImageSize", params);
  auto host = self->hosts_.find(params->pHostObject);
  if (host == self->hosts_.end()) return CUPTI_ERROR_INVALID_PARAMETER;
  params->configImageSize = kConfigHeader;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetConfigImage(
    CUpti_Profiler_Host_GetConfigImage_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostGetConfigImage", params);
  auto host = self->hosts_.find(params->pHostObject);
  if (host == self->hosts_.end() || params->pConfigImage == nullptr ||
      params->configImageSize < kConfigHeader) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  const uint64_t metrics = host->second->metrics.size();
  std::memset(params->pConfigImage, 0, kConfigHeader);
  std::memcpy(params->pConfigImage, &metrics, sizeof(metrics));
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetNumOfPasses(
    CUpti_Profiler_Host_GetNumOfPasses_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostGetNumOfPasses", params);
  if (params->pConfigImage == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  uint64_t metrics = 0;
  std::memcpy(&metrics, params->pConfigImage, sizeof(metrics));
  params->numOfPasses = (metrics + 3) / 4;  // a few metrics per pass, as on a real chip
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::EvaluateToGpuValues(
    CUpti_Profiler_Host_EvaluateToGpuValues_Params* params) {
  AIPROF_CHECK("cuptiProfilerHostEvaluateToGpuValues", params);
  Object* object = self->ByImage(params->pCounterDataImage);
  if (object == nullptr || !self->hosts_.contains(params->pHostObject) ||
      params->rangeIndex >= object->decoded.size() || params->pMetricValues == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  for (size_t i = 0; i < params->numMetrics; ++i) {
    params->pMetricValues[i] =
        self->values_(object->decoded[params->rangeIndex], params->ppMetricNames[i]);
  }
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::Enable(CUpti_RangeProfiler_Enable_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerEnable", params);
  if (params->ctx == nullptr) return CUPTI_ERROR_INVALID_CONTEXT;
  auto object = std::make_unique<Object>();
  object->context = params->ctx;
  params->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(object.get());
  self->objects_[params->pRangeProfilerObject] = std::move(object);
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::Disable(CUpti_RangeProfiler_Disable_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerDisable", params);
  return self->objects_.erase(params->pRangeProfilerObject) == 1 ? CUPTI_SUCCESS
                                                                 : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult RangeProfilerTestDouble::GetCounterDataSize(
    CUpti_RangeProfiler_GetCounterDataSize_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerGetCounterDataSize", params);
  if (self->ByObject(params->pRangeProfilerObject) == nullptr || params->numMetrics == 0 ||
      params->maxNumOfRanges == 0 || params->maxNumRangeTreeNodes < params->maxNumOfRanges) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  params->counterDataSize = kBytesPerRange * params->maxNumOfRanges;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::CounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerCounterDataImageInitialize", params);
  Object* object = self->ByObject(params->pRangeProfilerObject);
  if (object == nullptr || params->pCounterData == nullptr || params->counterDataSize == 0) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  object->image = params->pCounterData;
  object->max_ranges = params->counterDataSize / kBytesPerRange;
  object->decoded.clear();
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::SetConfig(CUpti_RangeProfiler_SetConfig_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerSetConfig", params);
  Object* object = self->ByObject(params->pRangeProfilerObject);
  if (object == nullptr || params->pConfig == nullptr ||
      params->pCounterDataImage != object->image || params->numNestingLevels != 1) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  self->auto_range_kernel_replay_ =
      params->range == CUPTI_AutoRange && params->replayMode == CUPTI_KernelReplay;
  object->max_ranges = std::min(object->max_ranges, params->maxRangesPerPass);
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::Start(CUpti_RangeProfiler_Start_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerStart", params);
  Object* object = self->ByObject(params->pRangeProfilerObject);
  if (object == nullptr || object->started) return CUPTI_ERROR_INVALID_OPERATION;
  object->started = true;
  object->launched.clear();
  object->dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::Stop(CUpti_RangeProfiler_Stop_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerStop", params);
  Object* object = self->ByObject(params->pRangeProfilerObject);
  if (object == nullptr || !object->started) return CUPTI_ERROR_INVALID_OPERATION;
  object->started = false;
  params->isAllPassSubmitted = 1;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::DecodeData(CUpti_RangeProfiler_DecodeData_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerDecodeData", params);
  Object* object = self->ByObject(params->pRangeProfilerObject);
  if (object == nullptr || object->started) return CUPTI_ERROR_INVALID_OPERATION;
  object->decoded = object->launched;
  params->numOfRangeDropped = object->dropped;
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetCounterDataInfo(
    CUpti_RangeProfiler_GetCounterDataInfo_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerGetCounterDataInfo", params);
  Object* object = self->ByImage(params->pCounterDataImage);
  if (object == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  params->numTotalRanges = object->decoded.size();
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::GetRangeInfo(
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params* params) {
  AIPROF_CHECK("cuptiRangeProfilerCounterDataGetRangeInfo", params);
  Object* object = self->ByImage(params->pCounterDataImage);
  if (object == nullptr || params->rangeIndex >= object->decoded.size()) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  params->rangeName = object->decoded[params->rangeIndex].c_str();
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::Subscribe(CUpti_SubscriberHandle* subscriber,
                                               CUpti_CallbackFunc callback, void* user) {
  RangeProfilerTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (self->callback_ != nullptr) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  self->callback_ = callback;
  self->callback_user_ = user;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(self);
  return CUPTI_SUCCESS;
}

CUptiResult RangeProfilerTestDouble::EnableCallback(uint32_t enable, CUpti_SubscriberHandle,
                                                    CUpti_CallbackDomain domain, CUpti_CallbackId) {
  RangeProfilerTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) self->resource_callbacks_ = enable != 0;
  return CUPTI_SUCCESS;
}

#undef AIPROF_CHECK

}  // namespace aiprof::cuda::testing
