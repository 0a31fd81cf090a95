// Options of `aiprof collect` (and the msprof form `aiprof [options] <app>`): msprof names
// and values, checked here so every invalid value exits 2 with one message naming the
// option, the value and what is allowed. docs/cli.md documents each one.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sources/host/host_sampler.h"

namespace aiprof::cli {

// As typed by the user (strings, so validation can quote them back).
struct CollectArgs {
  std::string output;
  std::string type = "text";
  std::string storage_limit;
  std::string buffer_size = "64";
  std::string delay = "0";
  std::string duration = "0";
  std::string msproftx = "on";
  std::string mstx_domain_include;
  std::string mstx_domain_exclude;
  std::string task_time = "on";
  std::string task_memory = "off";
  std::string runtime_api = "on";
  std::string ascendcl = "on";
  std::string model_execution;
  std::string hccl = "off";
  std::string ai_core;  // default follows --task-time
  std::string aic_mode = "task-based";
  std::string aic_metrics = "PipeUtilization";
  std::string aic_freq = "100";
  std::string l2 = "off";
  std::string aicpu = "off";
  std::string sys_hardware_mem = "off";
  std::string sys_hardware_mem_freq = "50";
  std::string sys_cpu_profiling = "off";
  std::string sys_cpu_freq = "99";
  std::string sys_cpu_call_graph = "fp";
  std::string sys_cpu_off_cpu_stacks = "all";
  std::string host_sys;
  std::string host_sys_usage;
  std::string host_sys_usage_freq = "50";
  std::string sys_profiling = "off";
  std::string sys_sampling_freq = "10";
  std::string sys_pid_profiling = "off";
  std::string sys_pid_sampling_freq = "10";
  std::string follow_children = "on";
  std::string export_after = "on";
  std::string environment;
  std::string application;
  std::vector<std::string> app;  // the app and its arguments
  // Options the user gave explicitly (by long name without dashes), for the notes about
  // sources that do not exist here.
  std::vector<std::string> explicit_options;
};

// Checked and converted.
struct CollectConfig {
  std::string output_dir;  // absolute
  std::string type;
  uint64_t storage_limit_mb = 0;
  uint64_t buffer_mb = 64;
  double delay_s = 0, duration_s = 0;
  bool msproftx = false;
  std::vector<std::string> mstx_domain_include, mstx_domain_exclude;
  std::string task_time;  // off|l0|l1|l2
  bool profile_memory = false;
  // msprof's option names mean other APIs here (docs/cli.md, "CUDA API tracing"): its
  // --ascendcl (AscendCL, the host API) traces the CUDA runtime API, its --runtime-api the
  // CUDA driver API; AIPROF_OPTIONS keeps msprof's names as keys ("ascendcl",
  // "runtime_api"), which the CUDA source reads into CudaSelection::runtime_api/driver_api.
  bool cuda_runtime_api = true;  // --ascendcl
  bool cuda_driver_api = true;   // --runtime-api
  bool hccl = false;
  bool ai_core = false;
  // ai_core follows --task-time (neither --ai-core nor --aic-metrics given): on NVIDIA GPUs
  // counters replay kernels, so the CUDA source collects them only when asked for.
  bool ai_core_default = false;
  std::string aic_mode, aic_metrics;
  bool l2 = false;
  int device_sys_freq_hz = 0;  // --sys-hardware-mem
  bool follow_children = true;
  bool export_after = true;  // --export: run `aiprof export` on the new PROF_* when the app ends
  // --sys-cpu-profiling=on: stack sampling frequency (0: off); --host-sys=osrt. Both are
  // collected inside the app by preloaded plugins (docs/cpu-sampling.md).
  uint32_t cpu_sampling_hz = 0;
  std::string cpu_call_graph = "fp";  // --sys-cpu-call-graph: "fp" or "dwarf"
  uint32_t cpu_stack_copy_bytes = 8192;
  std::string cpu_off_cpu_stacks;  // --sys-cpu-off-cpu-stacks: "<Hz>", "all" or "off"
  bool osrt = false;
  std::string runtime_mode = "launch";   // AIPROF_OPTIONS "mode"; "dynamic" for --dynamic=on
  std::vector<std::string> environment;  // NAME=VALUE
  std::vector<std::string> app;
  host::HostSamplerOptions sampler;  // output_dir/root_pid/window filled at launch
  std::vector<std::string> notes;    // one line per requested source that is absent here
};

struct Machine {
  bool has_nvidia_gpu = false;
  std::string gpu_absent_reason;  // why not, for the notes
};
Machine DetectMachine();

// Registers every collect option on `app`, grouped, with defaults shown in --help.
void AddCollectOptions(CLI::App* app, CollectArgs* args);
// After parsing: records which options were given explicitly.
void NoteExplicitOptions(const CLI::App& app, CollectArgs* args);

// False and `error` ("--opt=value: what is wrong; allowed: ...") on invalid input.
bool ResolveCollectArgs(const CollectArgs& args, const Machine& machine, CollectConfig* config,
                        std::string* error);

// The app's first word when it looks like an option (an option this command does not know,
// never a program to run): prints "<command>: unknown option ..." and returns true.
bool RejectOptionTakenForApp(const std::vector<std::string>& app, const char* command);

// The AIPROF_OPTIONS JSON for the runtime.
nlohmann::json RuntimeOptionsJson(const CollectConfig& config, uint64_t launch_realtime_ns);

}  // namespace aiprof::cli
