#include "sources/cuda/kernel_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace aiprof::cuda {

struct KernelMetrics::Session {
  std::mutex mutex;  // held across this session's CUPTI calls
  CUcontext context = nullptr;
  uint16_t device = 0;
  std::string chip;
  size_t passes = 0;
  CUpti_Profiler_Host_Object* host_object = nullptr;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<uint8_t> availability;
  std::vector<uint8_t> config;
  std::vector<uint8_t> counter_data;
  uint64_t ranges_read = 0;  // ranges of this context emitted so far
  bool running = false;      // started and not yet stopped
  bool closed = false;       // disabled (window over, or context gone)
};

namespace {

// The current CUDA context for the duration of a scope (the range profiler acts on the
// context current on the calling thread for some calls).
class CurrentContext {
 public:
  CurrentContext(const DriverApi& driver, CUcontext context) : driver_(driver) {
    pushed_ = driver_.ctx_push_current(context) == CUDA_SUCCESS;
  }
  ~CurrentContext() {
    CUcontext popped = nullptr;
    if (pushed_) driver_.ctx_pop_current(&popped);
  }
  CurrentContext(const CurrentContext&) = delete;
  CurrentContext& operator=(const CurrentContext&) = delete;

 private:
  const DriverApi& driver_;
  bool pushed_ = false;
};

void CUPTIAPI OnResource(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || data == nullptr || user == nullptr) return;
  auto* self = static_cast<KernelMetrics*>(user);
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    self->OnContextCreated(resource->context);
  } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    self->OnContextDestroying(resource->context);
  }
}

bool IsPrivilegeError(CUptiResult result) {
  return result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
         result == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

bool IsUnsupportedDevice(CUptiResult result) {
  return result == CUPTI_ERROR_NOT_SUPPORTED || result == CUPTI_ERROR_NOT_COMPATIBLE ||
         result == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED ||
         result == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED;
}

template <typename Params>
Params Make(size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}

}  // namespace

bool SelectMetrics(bool ai_core, const std::string& aic_metrics, bool l2,
                   MetricSelection* selection, std::string* error) {
  MetricSelection out;
  auto add = [&](const MetricGroup& group) {
    out.label += (out.label.empty() ? "" : "+") + std::string(group.msprof_name);
    for (const MetricColumn& column : group.columns) {
      const bool seen = std::any_of(out.columns.begin(), out.columns.end(), [&](const auto& c) {
        return std::strcmp(c.cupti_metric, column.cupti_metric) == 0;
      });
      if (!seen) out.columns.push_back(column);
    }
  };
  if (ai_core) {
    const MetricGroup* group =
        FindMetricGroup(aic_metrics.empty() ? std::string("PipeUtilization") : aic_metrics);
    if (group == nullptr) {
      *error = "unknown aic_metrics '" + aic_metrics + "' (valid: " + MetricGroupNames() + ")";
      return false;
    }
    add(*group);
  }
  if (l2 && out.label.find(L2MetricGroup().msprof_name) == std::string::npos) add(L2MetricGroup());
  *selection = std::move(out);
  return true;
}

KernelMetrics::KernelMetrics(const ProfilerApi& profiler, const CuptiApi& cupti,
                             const DriverApi& driver, const PluginHost& host, Log log)
    : profiler_(profiler), cupti_(cupti), driver_(driver), host_(host), log_(std::move(log)) {}

KernelMetrics::~KernelMetrics() {
  Stop();
}

std::string KernelMetrics::Describe(CUptiResult result) const {
  return DescribeCuptiResult(cupti_, result);
}

bool KernelMetrics::Start(const MetricSelection& selection, bool existing_contexts) {
  if (collecting_.load(std::memory_order_acquire)) return true;
  selection_ = selection;
  metric_names_.clear();
  metric_set_.clear();
  for (const MetricColumn& column : selection_.columns) {
    metric_names_.push_back(column.cupti_metric);
    metric_set_ +=
        (metric_set_.empty() ? "" : ";") + std::string(column.column) + "=" + column.cupti_metric;
  }
  if (existing_contexts && !InitializeProfiler()) return false;
  if (!subscribed_) {
    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult result = profiler_.subscribe(&subscriber, OnResource, this);
    if (result == CUPTI_SUCCESS) {
      profiler_.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
      profiler_.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
      subscribed_ = true;
    } else {
      Report(format::CudaMetricsStatus::kUnavailable,
             "cuptiSubscribe failed (" + Describe(result) +
                 "): contexts created from now on get no kernel counters");
    }
  }
  collecting_.store(true, std::memory_order_release);
  if (!existing_contexts) return true;
  // Contexts that already exist: the primary contexts the application made active.
  int devices = 0;
  if (driver_.device_get_count(&devices) != CUDA_SUCCESS) return true;  // cuInit not yet
  for (int ordinal = 0; ordinal < devices; ++ordinal) {
    CUdevice device = 0;
    unsigned int flags = 0;
    int active = 0;
    if (driver_.device_get(&device, ordinal) != CUDA_SUCCESS ||
        driver_.primary_ctx_get_state(device, &flags, &active) != CUDA_SUCCESS || !active) {
      continue;
    }
    CUcontext context = nullptr;
    if (driver_.primary_ctx_retain(&context, device) != CUDA_SUCCESS) continue;
    Enable(context);
    driver_.primary_ctx_release(device);
  }
  return true;
}

bool KernelMetrics::InitializeProfiler() {
  std::lock_guard<std::mutex> lock(initialize_mutex_);
  if (initialized_ || initialize_failed_) return initialized_;
  auto params =
      Make<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  const CUptiResult result = profiler_.profiler_initialize(&params);
  if (result != CUPTI_SUCCESS) {
    initialize_failed_ = true;
    Report(IsPrivilegeError(result) ? format::CudaMetricsStatus::kPermissionDenied
                                    : format::CudaMetricsStatus::kUnavailable,
           "per-kernel counters for " + selection_.label +
               " are not collected: cuptiProfilerInitialize failed (" + Describe(result) +
               "); kernel metric columns are N/A");
    return false;
  }
  initialized_ = true;
  return true;
}

void KernelMetrics::Shutdown() {
  Stop();
  std::lock_guard<std::mutex> lock(initialize_mutex_);
  if (!initialized_) return;
  auto params =
      Make<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
  profiler_.profiler_deinitialize(&params);
  initialized_ = false;
  initialize_failed_ = true;  // no later Start re-initialises it
}

void KernelMetrics::OnContextCreated(CUcontext context) {
  if (collecting_.load(std::memory_order_acquire) && InitializeProfiler()) Enable(context);
}

void KernelMetrics::OnContextDestroying(CUcontext context) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    for (auto& candidate : sessions_) {
      if (candidate->context == context) session = candidate;
    }
  }
  if (session == nullptr) return;
  std::unique_lock<std::mutex> lock(session->mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;  // the writer is reading it; Stop sees the error
  if (session->running) Read(*session);
  Close(*session);
}

void KernelMetrics::Enable(CUcontext context) {
  auto session = std::make_shared<Session>();
  session->context = context;
  std::lock_guard<std::mutex> session_lock(session->mutex);
  {
    // Under the list lock, which Stop takes to collect the sessions after it cleared
    // collecting_: a session added here is one Stop will read and close.
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    if (!collecting_.load(std::memory_order_acquire)) return;
    for (const auto& existing : sessions_) {
      if (existing->context == context && !existing->closed) return;
    }
    sessions_.push_back(session);
  }
  CUptiResult failure = CUPTI_SUCCESS;
  std::string failed_call;
  if (!Open(*session, &failure, &failed_call) || !Arm(*session, &failure, &failed_call)) {
    const std::string where = "GPU " + std::to_string(session->device) +
                              (session->chip.empty() ? "" : " (" + session->chip + ")");
    if (IsPrivilegeError(failure)) {
      Report(format::CudaMetricsStatus::kPermissionDenied,
             "GPU performance counters need administrator rights on " + where + " (" +
                 Describe(failure) + " in " + failed_call +
                 ", ERR_NVGPUCTRPERM): run the job as root, or let all users profile by "
                 "loading the NVIDIA driver with NVreg_RestrictProfilingToAdminUsers=0 (e.g. "
                 "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in "
                 "/etc/modprobe.d/, then reload the driver or reboot); kernel metric columns "
                 "are N/A");
    } else if (IsUnsupportedDevice(failure)) {
      Report(format::CudaMetricsStatus::kUnsupportedDevice,
             where + " does not support CUPTI range profiling (" + Describe(failure) + " in " +
                 failed_call + "); kernel metric columns are N/A");
    } else {
      Report(format::CudaMetricsStatus::kUnavailable,
             "kernel counters are unavailable on " + where + ": " + failed_call + " failed (" +
                 Describe(failure) + "); kernel metric columns are N/A");
    }
    Close(*session);
    return;
  }
  Report(format::CudaMetricsStatus::kCollecting,
         "collecting " + selection_.label + " per kernel on GPU " +
             std::to_string(session->device) + " (" + session->chip + ", " +
             std::to_string(session->passes) +
             " replay pass(es)): kernels are serialized and replayed, so kernel durations, "
             "overlap and step times in this window are distorted; collect timing in a "
             "separate run without --ai-core/--l2");
}

// Host side: the config image for the context's chip. Also reads the device.
bool KernelMetrics::Open(Session& session, CUptiResult* failure, std::string* failed_call) {
  CurrentContext current(driver_, session.context);
  auto fail = [&](CUptiResult result, const char* call) {
    *failure = result;
    *failed_call = call;
    return false;
  };
  CUdevice device = 0;
  if (driver_.ctx_get_device(&device) != CUDA_SUCCESS) {
    return fail(CUPTI_ERROR_INVALID_CONTEXT, "cuCtxGetDevice");
  }
  session.device = static_cast<uint16_t>(device);

  auto chip = Make<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device);
  CUptiResult result = profiler_.device_get_chip_name(&chip);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiDeviceGetChipName");
  session.chip = chip.pChipName != nullptr ? chip.pChipName : "";

  auto availability = Make<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  availability.ctx = session.context;
  result = profiler_.get_counter_availability(&availability);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerGetCounterAvailability");
  session.availability.resize(availability.counterAvailabilityImageSize);
  availability.pCounterAvailabilityImage = session.availability.data();
  result = profiler_.get_counter_availability(&availability);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerGetCounterAvailability");

  auto host = Make<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = session.chip.c_str();
  host.pCounterAvailabilityImage = session.availability.data();
  result = profiler_.host_initialize(&host);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerHostInitialize");
  session.host_object = host.pHostObject;

  auto add = Make<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = session.host_object;
  add.ppMetricNames = metric_names_.data();
  add.numMetrics = metric_names_.size();
  result = profiler_.host_config_add_metrics(&add);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerHostConfigAddMetrics");

  auto size = Make<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = session.host_object;
  result = profiler_.host_get_config_image_size(&size);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerHostGetConfigImageSize");
  session.config.resize(size.configImageSize);
  auto image = Make<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = session.host_object;
  image.configImageSize = session.config.size();
  image.pConfigImage = session.config.data();
  result = profiler_.host_get_config_image(&image);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerHostGetConfigImage");

  auto passes = Make<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = session.config.size();
  passes.pConfigImage = session.config.data();
  if (profiler_.host_get_num_of_passes(&passes) == CUPTI_SUCCESS)
    session.passes = passes.numOfPasses;

  auto enable =
      Make<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = session.context;
  result = profiler_.range_enable(&enable);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerEnable");
  session.object = enable.pRangeProfilerObject;

  auto data_size = Make<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  data_size.pRangeProfilerObject = session.object;
  data_size.pMetricNames = metric_names_.data();
  data_size.numMetrics = metric_names_.size();
  data_size.maxNumOfRanges = kMaxRangesPerWindow;
  data_size.maxNumRangeTreeNodes = static_cast<uint32_t>(kMaxRangesPerWindow);
  result = profiler_.range_get_counter_data_size(&data_size);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerGetCounterDataSize");
  session.counter_data.resize(data_size.counterDataSize);
  return true;
}

// A fresh counter data image, the config, and start: the next kernels are profiled.
bool KernelMetrics::Arm(Session& session, CUptiResult* failure, std::string* failed_call) {
  CurrentContext current(driver_, session.context);
  auto initialize = Make<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  initialize.pRangeProfilerObject = session.object;
  initialize.counterDataSize = session.counter_data.size();
  initialize.pCounterData = session.counter_data.data();
  CUptiResult result = profiler_.range_counter_data_image_initialize(&initialize);
  if (result != CUPTI_SUCCESS) {
    *failure = result;
    *failed_call = "cuptiRangeProfilerCounterDataImageInitialize";
    return false;
  }
  auto config =
      Make<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = session.object;
  config.configSize = session.config.size();
  config.pConfig = session.config.data();
  config.counterDataImageSize = session.counter_data.size();
  config.pCounterDataImage = session.counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = kMaxRangesPerWindow;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  result = profiler_.range_set_config(&config);
  if (result != CUPTI_SUCCESS) {
    *failure = result;
    *failed_call = "cuptiRangeProfilerSetConfig";
    return false;
  }
  auto start = Make<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = session.object;
  result = profiler_.range_start(&start);
  if (result != CUPTI_SUCCESS) {
    *failure = result;
    *failed_call = "cuptiRangeProfilerStart";
    return false;
  }
  session.running = true;
  return true;
}

// Stops, decodes and emits every range of the window.
void KernelMetrics::Read(Session& session) {
  CurrentContext current(driver_, session.context);
  auto stop = Make<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = session.object;
  session.running = false;
  CUptiResult result = profiler_.range_stop(&stop);
  if (result != CUPTI_SUCCESS) {
    Report(format::CudaMetricsStatus::kUnavailable,
           "cuptiRangeProfilerStop failed on GPU " + std::to_string(session.device) + ": " +
               Describe(result) + "; later kernels of this context get no counters");
    return;
  }
  auto decode = Make<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = session.object;
  result = profiler_.range_decode_data(&decode);
  if (result == CUPTI_SUCCESS && decode.numOfRangeDropped > 0) {
    ranges_dropped_.fetch_add(decode.numOfRangeDropped, std::memory_order_relaxed);
    Report(format::CudaMetricsStatus::kCollecting,
           std::to_string(decode.numOfRangeDropped) + " kernels on GPU " +
               std::to_string(session.device) + " got no counters: a window holds at most " +
               std::to_string(kMaxRangesPerWindow) +
               " profiled kernels per context; use a shorter window (--delay/--duration, "
               "or fewer steps)");
  }
  auto info = Make<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = session.counter_data.data();
  info.counterDataImageSize = session.counter_data.size();
  const size_t ranges =
      profiler_.range_get_counter_data_info(&info) == CUPTI_SUCCESS ? info.numTotalRanges : 0;

  const uint32_t metric_set = host_.intern(metric_set_.data(), metric_set_.size());
  const size_t count = metric_names_.size();
  const uint32_t value_words = static_cast<uint32_t>((count + 1) / 2);
  std::vector<format::ExtWord> record(2 + value_words);
  std::vector<double> values(value_words * 2, std::nan(""));
  for (size_t index = 0; index < ranges; ++index) {
    auto range = Make<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    range.pCounterDataImage = session.counter_data.data();
    range.counterDataImageSize = session.counter_data.size();
    range.rangeIndex = index;
    range.rangeDelimiter = "/";
    const char* name = profiler_.range_counter_data_get_range_info(&range) == CUPTI_SUCCESS &&
                               range.rangeName != nullptr
                           ? range.rangeName
                           : "";
    auto evaluate = Make<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    evaluate.pHostObject = session.host_object;
    evaluate.pCounterDataImage = session.counter_data.data();
    evaluate.counterDataImageSize = session.counter_data.size();
    evaluate.rangeIndex = index;
    evaluate.ppMetricNames = metric_names_.data();
    evaluate.numMetrics = count;
    std::fill(values.begin(), values.end(), std::nan(""));
    evaluate.pMetricValues = values.data();
    if (profiler_.host_evaluate_to_gpu_values(&evaluate) != CUPTI_SUCCESS) {
      std::fill(values.begin(), values.end(), std::nan(""));  // N/A, the kernel still counts
    }
    format::RecordHeader header{};
    header.ts = host_.now();
    header.kind = static_cast<uint8_t>(format::CudaRecordKind::kKernelMetrics);
    header.ext_words = static_cast<uint8_t>(1 + value_words);
    header.aux = session.device;
    header.arg = host_.intern(name, std::strlen(name));
    std::memcpy(&record[0], &header, sizeof(header));
    const format::CudaMetricRange meta{session.ranges_read + index, metric_set,
                                       static_cast<uint16_t>(count), 0};
    std::memcpy(&record[1], &meta, sizeof(meta));
    std::memcpy(&record[2], values.data(), value_words * sizeof(format::ExtWord));
    host_.emit(record.data(), static_cast<uint32_t>(record.size()));
  }
  session.ranges_read += ranges;
  ranges_emitted_.fetch_add(ranges, std::memory_order_relaxed);
}

void KernelMetrics::Close(Session& session) {
  if (session.closed) return;
  session.closed = true;
  if (session.object != nullptr) {
    CurrentContext current(driver_, session.context);
    auto disable =
        Make<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = session.object;
    profiler_.range_disable(&disable);
    session.object = nullptr;
  }
  if (session.host_object != nullptr) {
    auto deinitialize = Make<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    deinitialize.pHostObject = session.host_object;
    profiler_.host_deinitialize(&deinitialize);
    session.host_object = nullptr;
  }
}

void KernelMetrics::Stop() {
  if (!collecting_.exchange(false, std::memory_order_acq_rel)) return;
  std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    sessions.swap(sessions_);
  }
  for (const auto& session : sessions) {
    std::lock_guard<std::mutex> lock(session->mutex);
    if (session->running && !session->closed) Read(*session);
    Close(*session);
  }
  EmitDrops();
}

size_t KernelMetrics::active_sessions() const {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  return static_cast<size_t>(std::count_if(sessions_.begin(), sessions_.end(),
                                           [](const auto& session) { return !session->closed; }));
}

void KernelMetrics::EmitDrops() {
  const format::DropRecord record = format::MakeDropRecord(
      host_.now(), static_cast<uint32_t>(format::CudaRecordKind::kMetricRangesDropped),
      ranges_dropped_.load(std::memory_order_relaxed));
  host_.emit(&record, 2);
}

void KernelMetrics::Report(format::CudaMetricsStatus status, const std::string& message) {
  format::RecordHeader record{};
  record.ts = host_.now();
  record.kind = static_cast<uint8_t>(format::CudaRecordKind::kMetricsStatus);
  record.aux = static_cast<uint16_t>(status);
  record.arg = host_.intern(message.data(), message.size());
  host_.emit(&record, 1);
  std::lock_guard<std::mutex> lock(log_mutex_);
  if (std::find(logged_.begin(), logged_.end(), message) != logged_.end()) return;
  logged_.push_back(message);
  if (log_) log_(message);
}

}  // namespace aiprof::cuda
