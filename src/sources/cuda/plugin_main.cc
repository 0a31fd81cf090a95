// libaiprof_cuda.so: the CUDA source as a plugin. Loaded by the CUDA driver through
// CUDA_INJECTION64_PATH (InitializeInjection, at cuInit) in launch mode, or by dlopen when
// a process links or loads it; either way it attaches once. It reaches the runtime
// (libaiprof.so, already in the process) through dlsym so that loading it without the
// runtime does nothing rather than fail, and reaches CUPTI and NVML through dlopen.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "aiprof/cuda_correlation.h"
#include "aiprof/plugin.h"
#include "format/records_cuda.h"
#include "sources/cuda/cuda_collector.h"
#include "sources/cuda/cupti_api.h"
#include "sources/cuda/driver_api.h"
#include "sources/cuda/kernel_metrics.h"
#include "sources/cuda/metric_catalog.h"
#include "sources/cuda/nvml_sampler.h"
#include "sources/cuda/profiler_api.h"
#include "sources/cuda/stream_range_marker.h"

namespace aiprof::cuda {
namespace {

// True on the thread running InitializeInjection (inside the driver's cuInit): the source's
// first window may start there, when no context exists and driver calls must wait.
thread_local bool t_in_injection = false;

void Log(const std::string& message) {
  std::fprintf(stderr, "aiprof: cuda: %s\n", message.c_str());
}

struct RuntimeEntryPoints {
  PluginHost host{};
  int (*register_source)(const aiprof_source*) = nullptr;
  const char* (*options_json)() = nullptr;
  void (*add_metadata)(const char*, const char*) = nullptr;
  // Optional: a runtime without device-range hooks still gets the rest of the source.
  void (*set_device_range_hooks)(aiprof_device_range_start_fn,
                                 aiprof_device_range_end_fn) = nullptr;
};

template <typename Function>
bool Find(const char* symbol, Function* out) {
  *out = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, symbol));
  return *out != nullptr;
}

bool FindRuntime(RuntimeEntryPoints* runtime) {
  const bool required = Find("aiprof_now", &runtime->host.now) &&
                        Find("aiprof_intern", &runtime->host.intern) &&
                        Find("aiprof_emit", &runtime->host.emit) &&
                        Find("aiprof_emit_for_thread", &runtime->host.emit_for_thread) &&
                        Find("aiprof_register_source", &runtime->register_source) &&
                        Find("aiprof_options_json", &runtime->options_json) &&
                        Find("aiprof_add_metadata", &runtime->add_metadata);
  if (!required) return false;
  Find("aiprof_set_device_range_hooks", &runtime->set_device_range_hooks);
  return true;
}

struct WindowOptions {
  bool activity = true;
  ActivitySelection selection;
  double device_sys_freq_hz = 0;
  bool ai_core = false;
  bool ai_core_default = false;  // ai_core only because --task-time turned it on
  std::string aic_metrics;
  bool l2 = false;
  bool msproftx = false;
};

WindowOptions ParseOptions(const char* json_text) {
  WindowOptions options;
  const nlohmann::json json = nlohmann::json::parse(json_text ? json_text : "{}", nullptr, false);
  if (!json.is_object()) return options;
  auto get_bool = [&](const char* key, bool fallback) {
    auto it = json.find(key);
    return it != json.end() && it->is_boolean() ? it->get<bool>() : fallback;
  };
  auto it = json.find("task_time");
  if (it != json.end() && it->is_string() && it->get<std::string>() == "off") {
    options.activity = false;
  }
  // AIPROF_OPTIONS keeps msprof's option names: "ascendcl" (--ascendcl) is the CUDA runtime
  // API, "runtime_api" (--runtime-api) the CUDA driver API (docs/cli.md).
  options.selection.runtime_api = get_bool("ascendcl", true);
  options.selection.driver_api = get_bool("runtime_api", true);
  options.selection.memory = get_bool("profile_memory", false);
  it = json.find("device_sys_freq_hz");
  if (it != json.end() && it->is_number()) options.device_sys_freq_hz = it->get<double>();
  options.ai_core = get_bool("ai_core", false);
  options.ai_core_default = get_bool("ai_core_default", false);
  options.l2 = get_bool("l2", false);
  options.msproftx = get_bool("msproftx", true);  // the runtime's default
  it = json.find("aic_metrics");
  if (it != json.end() && it->is_string()) options.aic_metrics = it->get<std::string>();
  return options;
}

class CudaSource {
 public:
  static CudaSource& Get() {
    static CudaSource* source = new CudaSource();  // never destroyed: CUPTI may call late
    return *source;
  }

  bool Attach() {
    std::call_once(attach_once_, [this] { attached_ = AttachOnce(); });
    return attached_;
  }

  CudaCollector* collector() { return attached_ ? collector_.get() : nullptr; }

 private:
  bool AttachOnce() {
    if (!FindRuntime(&runtime_)) {
      Log("libaiprof.so is not loaded in this process; the CUDA source stays off");
      return false;
    }
    std::string error;
    if (!LoadCuptiApi(&cupti_, &error)) {
      Log(error + "; kernels, copies and CUDA API calls are not recorded");
      return false;
    }
    collector_ = std::make_unique<CudaCollector>(cupti_, runtime_.host, CollectorOptions{});
    if (!collector_->Attach(&error)) {
      Log(error);
      return false;
    }
    const nlohmann::json metadata = {
        {"cupti_api_version", CUPTI_API_VERSION},
        {"timestamps_on_process_clock", collector_->stats().clock_is_process_clock},
        {"activity_buffer_bytes", BufferPool::kDefaultBufferBytes},
        {"activity_buffer_limit", CollectorOptions{}.max_buffers}};
    runtime_.add_metadata("cuda", metadata.dump().c_str());
    AttachStreamRanges();
    source_ = aiprof_source{
        AIPROF_PLUGIN_ABI_VERSION, "cuda", OnStart, OnStop, OnFlush, OnForkChild, this};
    if (runtime_.register_source(&source_) != 0) {
      Log("the runtime refused the CUDA source registration");
      return false;
    }
    std::atexit(FinishBeforeCudaExits);
    return true;
  }

  // CUDA's own exit handlers tear CUPTI down, and the runtime's exit handler (registered
  // when libaiprof.so was preloaded, so it runs after them) then met a dead CUPTI: on an
  // H200 with driver 580 the window's last cuptiActivityDisable crashed the exiting job.
  // Attach runs inside cuInit, after the CUDA runtime registered its handlers, so this one
  // runs before them: it ends the window's CUDA collection (forced flush, counters, NVML)
  // while CUPTI is alive, and the source makes no CUPTI call after it.
  static void FinishBeforeCudaExits() {
    CudaSource& self = Get();
    std::lock_guard lock(self.lifecycle_mutex_);
    self.StopLocked();
    if (self.metrics_) self.metrics_->Shutdown();
    self.cuda_exiting_ = true;
  }

  // mstx ranges given a stream: needs the driver (cuEventRecord) and a runtime with hooks.
  void AttachStreamRanges() {
    std::string error;
    driver_loaded_ = LoadDriverApi(&driver_, &error);
    if (!driver_loaded_) {
      Log(error + "; mstx ranges get no device time");
      return;
    }
    if (runtime_.set_device_range_hooks == nullptr) return;
    stream_ranges_ = std::make_unique<StreamRangeMarker>(driver_, cupti_);
    runtime_.set_device_range_hooks(OnDeviceRangeStart, OnDeviceRangeEnd);
  }
  static void OnDeviceRangeStart(uint64_t range_id, void* stream) {
    Get().stream_ranges_->Start(range_id, stream);
  }
  static void OnDeviceRangeEnd(uint64_t range_id) { Get().stream_ranges_->End(range_id); }

  static void OnStart(void* user) {
    auto* self = static_cast<CudaSource*>(user);
    std::lock_guard lock(self->lifecycle_mutex_);
    self->StartLocked();
  }
  static void OnStop(void* user) {
    auto* self = static_cast<CudaSource*>(user);
    std::lock_guard lock(self->lifecycle_mutex_);
    self->StopLocked();
  }
  static void OnFlush(void* user) {
    auto* self = static_cast<CudaSource*>(user);
    std::lock_guard lock(self->lifecycle_mutex_);
    if (self->forked_child_ || self->cuda_exiting_) return;
    self->collector_->Flush();
    self->EmitStreamRangeDrops();
  }
  // CUPTI does not follow fork: the child keeps no usable CUPTI state, so its window
  // records no CUDA activity (the child's own cuInit, if any, injects afresh).
  static void OnForkChild(void* user) { static_cast<CudaSource*>(user)->forked_child_ = true; }

  void StartLocked() {
    if (forked_child_ || cuda_exiting_) return;
    WindowOptions options = ParseOptions(runtime_.options_json());
    options.selection.device_markers = options.msproftx && stream_ranges_ != nullptr;
    if (options.activity) {
      std::string error, warnings;
      if (!collector_->Start(options.selection, &error, &warnings)) Log(error);
      if (!warnings.empty()) Log(warnings);
      if (options.selection.device_markers) stream_ranges_->set_enabled(true);
    }
    if (options.device_sys_freq_hz > 0) StartNvml(options.device_sys_freq_hz);
    if (options.ai_core && options.ai_core_default) {
      Log("per-kernel counters (--ai-core) replay every kernel on NVIDIA GPUs, so they are "
          "not collected by default: pass --ai-core=on or --aic-metrics=<group> for them");
    }
    if ((options.ai_core && !options.ai_core_default) || options.l2) StartMetrics(options);
  }

  void StopLocked() {
    if (forked_child_ || cuda_exiting_) return;
    if (sampler_) sampler_->Stop();
    if (stream_ranges_) stream_ranges_->set_enabled(false);
    if (metrics_) metrics_->Stop();
    collector_->Stop();
    EmitStreamRangeDrops();
  }

  // Cumulative, like the other drop counts, so every export shows it.
  void EmitStreamRangeDrops() {
    if (!stream_ranges_ || stream_ranges_->dropped() == 0) return;
    const format::DropRecord record = format::MakeDropRecord(
        runtime_.host.now(), static_cast<uint32_t>(format::CudaRecordKind::kStreamRangesDropped),
        stream_ranges_->dropped());
    runtime_.host.emit(&record, 2);
  }

  void StartNvml(double frequency_hz) {
    if (!sampler_) {
      NvmlApi nvml{};
      std::string error;
      if (!LoadNvmlApi(&nvml, &error)) {
        Log(error);
        return;
      }
      auto sampler = std::make_unique<NvmlSampler>(nvml, runtime_.host);
      if (!sampler->Open(&error)) {
        Log(error + "; GPU counters are off");
        return;
      }
      sampler_ = std::move(sampler);
    }
    sampler_->Start(frequency_hz);
  }

  // Per-kernel hardware counters (CUPTI range profiler). Whatever stops them (unknown
  // group, no profiler in libcupti, no driver, permissions, device) is said in the data
  // (kMetricsStatus, shown as a cuda_metrics instant) and on stderr.
  void StartMetrics(const WindowOptions& options) {
    MetricSelection selection;
    std::string error;
    const bool ai_core = options.ai_core && !options.ai_core_default;
    if (!SelectMetrics(ai_core, options.aic_metrics, options.l2, &selection, &error)) {
      ReportMetricsUnavailable(error + "; no kernel counters are collected");
      return;
    }
    if (!RangeProfilerAllowed()) {
      ReportMetricsUnavailable(
          "per-kernel counters for " + selection.label +
          " are off: on an H200 (driver 580, CUPTI 13.0) CUPTI's range profiler crashed the "
          "exiting job inside a CUPTI thread in aiprof's GPU verification, and a profiler must "
          "not harm the job. Use Nsight Compute (ncu --metrics ...) for kernel counters, or set "
          "AIPROF_CUDA_RANGE_PROFILER=1 to try the range profiler at that risk; kernel metric "
          "columns are N/A");
      return;
    }
    if (!metrics_) {
      const std::string not_collected =
          "per-kernel counters for " + selection.label + " are not collected: ";
      ProfilerApi profiler{};
      if (!LoadProfilerApi(&profiler, &error)) {
        ReportMetricsUnavailable(not_collected + error + "; kernel metric columns are N/A");
        return;
      }
      if (!driver_loaded_) {
        ReportMetricsUnavailable(not_collected +
                                 "the CUDA driver (libcuda.so.1) is not loaded; kernel metric "
                                 "columns are N/A");
        return;
      }
      metrics_ = std::make_unique<KernelMetrics>(profiler, cupti_, driver_, runtime_.host, Log);
    }
    metrics_->Start(selection, /*existing_contexts=*/!t_in_injection);
  }

  // The range profiler is opt-in until its crash on real hardware is understood
  // (docs/cuda.md, "Verification on a GPU").
  static bool RangeProfilerAllowed() {
    const char* allowed = std::getenv("AIPROF_CUDA_RANGE_PROFILER");
    return allowed != nullptr && std::strcmp(allowed, "1") == 0;
  }

  void ReportMetricsUnavailable(const std::string& message) {
    Log(message);
    format::RecordHeader record{};
    record.ts = runtime_.host.now();
    record.kind = static_cast<uint8_t>(format::CudaRecordKind::kMetricsStatus);
    record.aux = static_cast<uint16_t>(format::CudaMetricsStatus::kUnavailable);
    record.arg = runtime_.host.intern(message.data(), message.size());
    runtime_.host.emit(&record, 1);
  }

  std::once_flag attach_once_;
  bool attached_ = false;
  // Serialises the runtime's start / stop / flush calls with the exit handler.
  std::mutex lifecycle_mutex_;
  bool forked_child_ = false;
  bool cuda_exiting_ = false;  // FinishBeforeCudaExits ran: CUPTI may be gone
  RuntimeEntryPoints runtime_;
  CuptiApi cupti_{};
  DriverApi driver_{};
  bool driver_loaded_ = false;
  std::unique_ptr<CudaCollector> collector_;
  std::unique_ptr<StreamRangeMarker> stream_ranges_;
  std::unique_ptr<KernelMetrics> metrics_;
  std::unique_ptr<NvmlSampler> sampler_;
  aiprof_source source_{};
};

__attribute__((constructor)) void AttachWhenLoaded() {
  // Loaded by the driver through CUDA_INJECTION64_PATH: this runs inside cuInit.
  const char* injection = std::getenv("CUDA_INJECTION64_PATH");
  t_in_injection = injection != nullptr && std::strstr(injection, "aiprof_cuda") != nullptr;
  CudaSource::Get().Attach();
  t_in_injection = false;
}

}  // namespace
}  // namespace aiprof::cuda

extern "C" {

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
// The driver loads it with local scope, where the torch plugin's and Python's
// dlsym(RTLD_DEFAULT) lookups of aiprof_cuda_push_external_id cannot see it (on an H200 no
// kernel carried its operator's External id): reopening it RTLD_GLOBAL | RTLD_NOLOAD makes
// its few exported functions global.
__attribute__((visibility("default"))) int InitializeInjection(void) {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&InitializeInjection), &self) != 0 &&
      self.dli_fname != nullptr) {
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  }
  aiprof::cuda::t_in_injection = true;
  const bool attached = aiprof::cuda::CudaSource::Get().Attach();
  aiprof::cuda::t_in_injection = false;
  return attached ? 1 : 0;
}

__attribute__((visibility("default"))) int aiprof_cuda_push_external_id(uint32_t kind,
                                                                        uint64_t id) {
  aiprof::cuda::CudaCollector* collector = aiprof::cuda::CudaSource::Get().collector();
  return collector != nullptr && collector->PushExternal(kind, id) ? 1 : 0;
}

__attribute__((visibility("default"))) int aiprof_cuda_pop_external_id(uint32_t kind) {
  aiprof::cuda::CudaCollector* collector = aiprof::cuda::CudaSource::Get().collector();
  return collector != nullptr && collector->PopExternal(kind) ? 1 : 0;
}

}  // extern "C"
