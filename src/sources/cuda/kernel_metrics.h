// Per-kernel hardware counters for --ai-core=on --aic-metrics=<group> and --l2=on, through
// the CUPTI range profiler in auto-range mode (one range per kernel) with kernel replay (CUPTI
// replays each kernel once per counter pass, saving and restoring the memory it touches).
//
// A session per CUDA context: the host side (cuptiProfilerHost*) turns the metric names into
// a config image for the context's chip; the range profiler object (cuptiRangeProfiler*)
// collects into a counter data image of kMaxRangesPerWindow ranges. At the end of the window
// (or when its context is about to be destroyed) the session is stopped, decoded and every
// range's metrics evaluated to values (kKernelMetrics records: the i-th range is the i-th
// kernel launched on the context). It is read only then, never stopped and restarted
// mid-window: kernels launched between a stop and the next start would get no range and
// shift the order that ties ranges to kernels. Kernels beyond the image's capacity are
// dropped by CUPTI, counted (kDrops, arg kMetricRangesDropped) and reported.
//
// Contexts: the primary contexts active at Start, and every context created later (CUPTI
// resource callback). Replay serializes kernels, so timing in such a window is distorted:
// each session says so in a kMetricsStatus record and on stderr, like msprof and ncu.
//
// Threads: Start/Stop run on the runtime's threads, the context callbacks on the
// application thread creating or destroying a context. The session list lock is never held
// across a CUPTI call; a session's own lock is, and the destroy callback only try-locks it,
// so a context torn down while the writer reads it cannot deadlock against CUPTI's locks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "format/records_cuda.h"
#include "sources/cuda/cupti_api.h"
#include "sources/cuda/driver_api.h"
#include "sources/cuda/metric_catalog.h"
#include "sources/cuda/plugin_host.h"
#include "sources/cuda/profiler_api.h"

namespace aiprof::cuda {

// What one window collects: the --aic-metrics group (when ai_core), plus L2Cache with --l2,
// each metric once.
struct MetricSelection {
  std::string label;  // "PipeUtilization", "PipeUtilization+L2Cache", "L2Cache"
  std::vector<MetricColumn> columns;
};

// False with the valid group names in `error` when `aic_metrics` names no group.
bool SelectMetrics(bool ai_core, const std::string& aic_metrics, bool l2,
                   MetricSelection* selection, std::string* error);

class KernelMetrics {
 public:
  static constexpr size_t kMaxRangesPerWindow = 8192;  // kernels per context and window
  using Log = std::function<void(const std::string&)>;

  KernelMetrics(const ProfilerApi& profiler, const CuptiApi& cupti, const DriverApi& driver,
                const PluginHost& host, Log log);
  ~KernelMetrics();
  KernelMetrics(const KernelMetrics&) = delete;
  KernelMetrics& operator=(const KernelMetrics&) = delete;

  // Starts counters on the active primary contexts (unless `existing_contexts` is false:
  // inside the driver's cuInit, where no context exists and driver calls are unsafe) and on
  // every context created from now on until Stop. Returns false (and says why in the data
  // and the log) if the profiler cannot be initialized at all. Inside cuInit the profiler
  // is initialized at the first context creation instead: CUPTI refuses it there
  // (CUPTI_ERROR_UNKNOWN, H200 with driver 580), as NVIDIA's injection sample implies by
  // doing it from the context callback.
  bool Start(const MetricSelection& selection, bool existing_contexts = true);
  // Reads every session and disables counters.
  void Stop();
  // Stop, then cuptiProfilerDeInitialize: CUPTI's documented end of the profiler's
  // lifecycle, for the process's exit (before CUDA's own exit handlers). No Start after it.
  void Shutdown();

  // CUPTI resource callbacks.
  void OnContextCreated(CUcontext context);
  void OnContextDestroying(CUcontext context);

  uint64_t ranges_emitted() const { return ranges_emitted_.load(std::memory_order_relaxed); }
  uint64_t ranges_dropped() const { return ranges_dropped_.load(std::memory_order_relaxed); }
  size_t active_sessions() const;

 private:
  struct Session;

  bool InitializeProfiler();
  void Enable(CUcontext context);
  bool Open(Session& session, CUptiResult* failure, std::string* failed_call);
  bool Arm(Session& session, CUptiResult* failure, std::string* failed_call);
  void Read(Session& session);
  void Close(Session& session);
  void Report(format::CudaMetricsStatus status, const std::string& message);
  std::string Describe(CUptiResult result) const;
  void EmitDrops();

  const ProfilerApi profiler_;
  const CuptiApi cupti_;
  const DriverApi driver_;
  const PluginHost host_;
  const Log log_;

  std::atomic<bool> collecting_{false};
  std::mutex initialize_mutex_;  // Start's thread and CUPTI's context callback
  bool initialized_ = false;     // cuptiProfilerInitialize succeeded
  bool initialize_failed_ = false;
  bool subscribed_ = false;
  MetricSelection selection_;  // written by Start before collecting_ is set
  std::vector<const char*> metric_names_;
  std::string metric_set_;  // "column=metric;..." for the records
  std::atomic<uint64_t> ranges_emitted_{0};
  std::atomic<uint64_t> ranges_dropped_{0};

  mutable std::mutex sessions_mutex_;  // the list only; never held across CUPTI calls
  std::vector<std::shared_ptr<Session>> sessions_;
  std::mutex log_mutex_;
  std::vector<std::string> logged_;  // each distinct message once on stderr
};

}  // namespace aiprof::cuda
