// The collect options: their declaration on the command line (names, help groups, defaults
// shown in --help), the machine they are resolved against, and the runtime's view of the
// resolved config. Turning the given values into a CollectConfig is collect_options_resolve.cc.
#include "cli/collect_options.h"

#include <dlfcn.h>
#include <unistd.h>

#include <iostream>

namespace aiprof::cli {

Machine DetectMachine() {
  Machine machine;
  if (access("/dev/nvidia0", F_OK) == 0) {
    machine.has_nvidia_gpu = true;
    return machine;
  }
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!cuda) {
    machine.gpu_absent_reason = "no /dev/nvidia0, libcuda.so.1 not found";
    return machine;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto count_fn = reinterpret_cast<CountFn>(dlsym(cuda, "cuDeviceGetCount"));
  int count = 0;
  if (init && count_fn && init(0) == 0 && count_fn(&count) == 0 && count > 0) {
    machine.has_nvidia_gpu = true;
  } else {
    machine.gpu_absent_reason = "no /dev/nvidia0, the CUDA driver reports no device";
  }
  dlclose(cuda);
  return machine;
}

namespace {

// Adds a string option with its help group and the default shown in --help.
struct OptionAdder {
  CLI::App* app;
  CLI::Option* operator()(const char* name, std::string* value, const char* help, const char* group,
                          const char* default_text) const {
    CLI::Option* option = app->add_option(name, *value, help);
    option->group(group)->default_str(default_text);
    return option;
  }
};

// Output, collection window, markers, operators and APIs.
void AddOutputAndTraceOptions(const OptionAdder& add, CollectArgs* a) {
  const char* kOutput = "Output";
  add("--output", &a->output, "Directory that receives the PROF_* directories", kOutput,
      "current directory");
  add("--type", &a->type,
      "What the export after collection writes: text (timeline + summaries) or db (SQLite)",
      kOutput, "text");
  add("--export", &a->export_after,
      "Export when the app ends, as `aiprof export` would (msprof does the same): on|off", kOutput,
      "on");
  add("--storage-limit", &a->storage_limit,
      "Stop collecting cleanly once the raw data of a process reaches <N>MB (1..4294967295)",
      kOutput, "no limit");
  add("--buffer-size", &a->buffer_size, "Record buffer per process in MB (1..4096)", kOutput, "64");

  const char* kWindow = "Collection window";
  add("--delay", &a->delay, "Start collecting <s> seconds after the app starts (0..4294967295)",
      kWindow, "0 (at start)");
  add("--duration", &a->duration, "Collect for <s> seconds, then stop (0..4294967295)", kWindow,
      "0 (until exit)");

  const char* kHostApp = "Markers, operators and APIs";
  add("--msproftx", &a->msproftx,
      "mstx/NVTX markers and ranges: on|off (msprof's default is off; aiprof records them "
      "unless turned off, as nsys does, and says how many calls --msproftx=off ignored)",
      kHostApp, "on");
  add("--mstx-domain-include", &a->mstx_domain_include, "Only these marker domains (comma list)",
      kHostApp, "all");
  add("--mstx-domain-exclude", &a->mstx_domain_exclude, "All marker domains but these (comma list)",
      kHostApp, "none");
  add("--task-time", &a->task_time,
      "Framework operators and device tasks: off|on|l0|l1|l2 (on = l1; l1 adds shapes and "
      "dtypes, l2 adds module hierarchy)",
      kHostApp, "on");
  add("--task-memory", &a->task_memory, "Operator memory (allocator events): on|off", kHostApp,
      "off");
  add("--ascendcl", &a->ascendcl,
      "Host API tracing (CUDA runtime API; the API-to-kernel arrows need it): on|off", kHostApp,
      "on");
  add("--runtime-api", &a->runtime_api,
      "Driver API tracing (CUDA driver API: Triton, NCCL launches): on|off (msprof's default "
      "is off; aiprof's is on, since launches made through the driver would be missing)",
      kHostApp, "on");
  add("--model-execution", &a->model_execution,
      "msprof's model execution data: on is accepted, as step (iteration) records are "
      "collected in every window",
      kHostApp, "on (always)");
  add("--hccl", &a->hccl,
      "Communication operators: message sizes at every --task-time level and NCCL NVTX "
      "ranges (collectives are found with --task-time alone): on|off",
      kHostApp, "off");
}

// Device (NVIDIA GPU) options.
void AddDeviceOptions(const OptionAdder& add, CollectArgs* a) {
  const char* kDevice = "Device (NVIDIA GPU)";
  add("--ai-core", &a->ai_core,
      "Per-kernel hardware metrics (CUPTI range profiler; on NVIDIA GPUs only with "
      "AIPROF_CUDA_RANGE_PROFILER=1 in the environment, docs/cuda.md): on|off",
      kDevice, "on with --task-time=on|l1|l2, else off");
  add("--aic-mode", &a->aic_mode,
      "Metric collection: task-based (per kernel; sample-based is not supported on NVIDIA GPUs)",
      kDevice, "task-based");
  add("--aic-metrics", &a->aic_metrics,
      "Metric group: ArithmeticUtilization|PipeUtilization|Memory|MemoryL0|"
      "ResourceConflictRatio|MemoryUB|L2Cache|MemoryAccess",
      kDevice, "PipeUtilization");
  add("--aic-freq", &a->aic_freq,
      "Sampling frequency of --aic-mode=sample-based: rejected, as sample-based is", kDevice,
      "100");
  add("--l2", &a->l2, "L2 cache hit rates per kernel: on|off", kDevice, "off");
  add("--aicpu", &a->aicpu,
      "Ascend AI CPU operators: off only (no such device here; CPU operators come with "
      "--task-time)",
      kDevice, "off");
  add("--sys-hardware-mem", &a->sys_hardware_mem,
      "Device memory bandwidth and utilisation (NVML): on|off", kDevice, "off");
  add("--sys-hardware-mem-freq", &a->sys_hardware_mem_freq, "Its sampling frequency in Hz (1..100)",
      kDevice, "50");
  add("--sys-cpu-profiling", &a->sys_cpu_profiling,
      "Host CPU sampling of the app: call stacks, thread switches (docs/cpu-sampling.md): on|off",
      kDevice, "off");
  add("--sys-cpu-freq", &a->sys_cpu_freq, "Its sampling frequency in Hz (1..10000)", kDevice, "99");
  add("--sys-cpu-call-graph", &a->sys_cpu_call_graph,
      "Its call stacks, as perf record --call-graph: fp (frame pointers) or dwarf[,<bytes>] (a "
      "copy of the user stack per sample, and per blocking switch where tracefs is readable, "
      "1024..32768 bytes, default 8192, unwound at export)",
      kDevice, "fp");
  add("--sys-cpu-off-cpu-stacks", &a->sys_cpu_off_cpu_stacks,
      "Blocking stacks at thread switches: all (every switch), <Hz> (every switch of a thread "
      "that switches less often, else about that many a second, 1..10000: cheaper for a job "
      "switching thousands of times a second, but long waits after a burst may lose their "
      "stack) or off (thread states only)",
      kDevice, "all");
}

// Host resources (sampled by the launcher) and the application.
void AddHostAndApplicationOptions(const OptionAdder& add, CollectArgs* a) {
  const char* kHost = "Host resources (sampled by the launcher)";
  add("--host-sys", &a->host_sys,
      "Per-process data of the app's process tree, comma list of cpu,mem,disk,network,osrt "
      "(network: whole-machine NIC traffic; osrt: blocking OS calls of the app, "
      "docs/cpu-sampling.md)",
      kHost, "none");
  add("--host-sys-usage", &a->host_sys_usage, "Whole-machine usage, comma list of cpu,mem", kHost,
      "none");
  add("--host-sys-usage-freq", &a->host_sys_usage_freq,
      "Sampling frequency in Hz for --host-sys and --host-sys-usage (1..50)", kHost, "50");
  add("--sys-profiling", &a->sys_profiling, "Whole-machine CPU and memory usage: on|off", kHost,
      "off");
  add("--sys-sampling-freq", &a->sys_sampling_freq, "Its sampling frequency in Hz (1..10)", kHost,
      "10");
  add("--sys-pid-profiling", &a->sys_pid_profiling, "Per-process CPU and memory usage: on|off",
      kHost, "off");
  add("--sys-pid-sampling-freq", &a->sys_pid_sampling_freq, "Its sampling frequency in Hz (1..10)",
      kHost, "10");

  const char* kProcess = "Application";
  add("--follow-children", &a->follow_children,
      "Profile child processes too (one PROF_* each): on|off", kProcess, "on");
  add("--environment", &a->environment, "Extra environment for the app: \"NAME=VALUE;NAME=VALUE\"",
      kProcess, "none");
  add("--application", &a->application, "Legacy msprof form: \"<app> <args>\"", kProcess, "");
}

}  // namespace

void AddCollectOptions(CLI::App* app, CollectArgs* a) {
  const OptionAdder add{app};
  AddOutputAndTraceOptions(add, a);
  AddDeviceOptions(add, a);
  AddHostAndApplicationOptions(add, a);
}

void NoteExplicitOptions(const CLI::App& app, CollectArgs* args) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() > 0 && !option->get_lnames().empty()) {
      args->explicit_options.push_back(option->get_lnames().front());
    }
  }
}

bool RejectOptionTakenForApp(const std::vector<std::string>& app, const char* command) {
  if (app.empty() || app.front().size() < 2 || app.front()[0] != '-') return false;
  std::cerr << command << ": unknown option '" << app.front() << "' (" << command
            << " --help lists the options)\n";
  return true;
}

nlohmann::json RuntimeOptionsJson(const CollectConfig& c, uint64_t launch_realtime_ns) {
  return {
      {"output", c.output_dir},
      {"mode", c.runtime_mode},
      // --hccl alone turns marker collection on for NCCL's own NVTX domain only.
      {"msproftx", c.msproftx || c.hccl},
      {"mstx_domain_include",
       c.hccl && !c.msproftx ? std::vector<std::string>{"NCCL"} : c.mstx_domain_include},
      {"mstx_domain_exclude", c.mstx_domain_exclude},
      {"task_time", c.task_time},
      {"ascendcl", c.cuda_runtime_api},
      {"runtime_api", c.cuda_driver_api},
      {"profile_memory", c.profile_memory},
      {"record_shapes", c.task_time == "l1" || c.task_time == "l2" || c.hccl},
      {"with_stack", false},
      {"with_modules", c.task_time == "l2"},
      {"ai_core", c.ai_core},
      {"ai_core_default", c.ai_core_default},
      {"aic_mode", c.aic_mode},
      {"aic_metrics", c.aic_metrics},
      {"l2", c.l2},
      {"hccl", c.hccl},
      {"device_sys_freq_hz", c.device_sys_freq_hz},
      {"buffer_mb", c.buffer_mb},
      {"storage_limit_mb", c.storage_limit_mb},
      {"delay_s", c.delay_s},
      {"duration_s", c.duration_s},
      {"launch_realtime_ns", launch_realtime_ns},
      {"launcher_pid", static_cast<int64_t>(getpid())},
      {"follow_children", c.follow_children},
      {"app", c.app},
      {"type", c.type},
      {"cpu_sampling",
       {{"freq_hz", c.cpu_sampling_hz},
        {"mode", "auto"},
        {"call_graph", c.cpu_call_graph},
        {"stack_copy_bytes", c.cpu_stack_copy_bytes},
        {"off_cpu_stacks", c.cpu_off_cpu_stacks}}},
      {"osrt", {{"on", c.osrt}, {"threshold_ns", 1000}}},
  };
}

}  // namespace aiprof::cli
