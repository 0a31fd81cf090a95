// The collect options resolved: each given value checked against the runtime's own limits
// (runtime/option_limits.h) and turned into the CollectConfig, with a note for what this
// machine cannot collect.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

#include "cli/collect_options.h"
#include "runtime/option_limits.h"

namespace aiprof::cli {
namespace {

// The upper bound of an AIPROF_OPTIONS key from the table the runtime validates with
// (runtime/option_limits.h), so the command line and every other source agree.
uint64_t MaxOf(std::string_view key) {
  return static_cast<uint64_t>(runtime::FindNumericOption(key)->max);
}
uint64_t MinOf(std::string_view key) {
  return static_cast<uint64_t>(runtime::FindNumericOption(key)->min);
}

std::string Quote(const std::string& option, const std::string& value) {
  return "--" + option + "=" + (value.empty() ? "''" : value);
}

std::vector<std::string> SplitList(const std::string& text, char separator) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(separator, begin);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) items.push_back(item);
    begin = end + 1;
  }
  return items;
}

bool OnOff(const std::string& option, const std::string& value, bool* out, std::string* error) {
  if (value == "on") {
    *out = true;
    return true;
  }
  if (value == "off") {
    *out = false;
    return true;
  }
  *error = Quote(option, value) + ": invalid value; allowed: on|off";
  return false;
}

bool OneOf(const std::string& option, const std::string& value,
           const std::vector<std::string>& allowed, std::string* error) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return true;
  std::string list;
  for (const std::string& item : allowed) list += (list.empty() ? "" : "|") + item;
  *error = Quote(option, value) + ": invalid value; allowed: " + list;
  return false;
}

bool Integer(const std::string& option, const std::string& value, uint64_t min, uint64_t max,
             uint64_t* out, std::string* error) {
  uint64_t parsed = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || parsed < min ||
      parsed > max) {
    *error = Quote(option, value) + ": invalid value; allowed: an integer in " +
             std::to_string(min) + ".." + std::to_string(max);
    return false;
  }
  *out = parsed;
  return true;
}

bool Seconds(const std::string& option, const std::string& value, double* out, std::string* error) {
  double parsed = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() ||
      !std::isfinite(parsed) || parsed < 0 || parsed > runtime::FindNumericOption("delay_s")->max) {
    *error = Quote(option, value) +
             ": invalid value; allowed: seconds in 0..4294967295 "
             "(fractions allowed, 0 = not set)";
    return false;
  }
  *out = parsed;
  return true;
}

// "<app> <args>" of --application: whitespace separated, with '...' and "..." quoting.
bool SplitCommandLine(const std::string& text, std::vector<std::string>* words) {
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words->push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) return false;
  if (in_word) words->push_back(word);
  return true;
}

bool Given(const CollectArgs& args, const std::string& option) {
  return std::find(args.explicit_options.begin(), args.explicit_options.end(), option) !=
         args.explicit_options.end();
}

void AddNotes(const CollectArgs& args, const Machine& machine, CollectConfig* config) {
  auto note = [&](const std::string& line) { config->notes.push_back(line); };
  if (!machine.has_nvidia_gpu) {
    const std::string why = "no NVIDIA GPU here (" + machine.gpu_absent_reason + ")";
    if (config->ai_core && Given(args, "ai-core")) {
      note("--ai-core=on: " + why + "; per-kernel hardware metrics will not be collected");
    }
    for (const char* option : {"aic-metrics", "aic-mode"}) {
      if (Given(args, option)) {
        note(std::string("--") + option + ": " + why + "; no kernel metrics will be collected");
      }
    }
    if (config->l2) note("--l2=on: " + why + "; L2 cache metrics will not be collected");
    if (config->device_sys_freq_hz > 0) {
      note("--sys-hardware-mem=on: " + why + "; device memory bandwidth will not be collected");
    }
    if (config->hccl) {
      note("--hccl=on: " + why +
           "; no NCCL kernels or NCCL NVTX ranges will be collected; CPU collectives "
           "(torch.distributed gloo) are, from the framework operators of --task-time");
    }
  }
  if (config->hccl && config->task_time == "off") {
    note(
        "--hccl=on with --task-time=off: framework collectives (gloo, nccl work ranges) come "
        "from the operator records that --task-time=off turns off; only NCCL kernels and "
        "NCCL NVTX ranges will be collected");
  }
}

// A frequency option is only meaningful with the option it paces.
bool RejectUnpaced(const CollectArgs& args, const char* frequency, bool paced_on, const char* needs,
                   std::string* error) {
  if (!Given(args, frequency) || paced_on) return true;
  *error = std::string("--") + frequency + " sets the sampling rate of " + needs +
           ", which is off; turn it on or leave --" + frequency + " out";
  return false;
}

}  // namespace
namespace {

// --output, --type, --storage-limit, --buffer-size, --delay, --duration.
bool ResolveOutputOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  std::error_code ec;
  std::string output = args.output.empty() ? "." : args.output;
  c->output_dir = std::filesystem::absolute(output, ec).lexically_normal().string();
  if (ec || output.empty()) {
    *error = Quote("output", args.output) + ": not a usable path";
    return false;
  }
  if (!c->output_dir.empty() && c->output_dir.size() > 1 && c->output_dir.back() == '/') {
    c->output_dir.pop_back();
  }
  if (!OneOf("type", args.type, {"text", "db"}, error)) return false;
  c->type = args.type;

  if (!args.storage_limit.empty()) {
    std::string number = args.storage_limit;
    if (number.size() > 2) {
      std::string unit = number.substr(number.size() - 2);
      std::transform(unit.begin(), unit.end(), unit.begin(), ::toupper);
      if (unit == "MB") number.resize(number.size() - 2);
    }
    if (!Integer("storage-limit", number, 1, MaxOf("storage_limit_mb"), &c->storage_limit_mb,
                 error)) {
      *error = Quote("storage-limit", args.storage_limit) +
               ": invalid value; allowed: <N>MB with N in 1..4294967295";
      return false;
    }
  }
  if (!Integer("buffer-size", args.buffer_size, MinOf("buffer_mb"), MaxOf("buffer_mb"),
               &c->buffer_mb, error)) {
    return false;
  }
  if (!Seconds("delay", args.delay, &c->delay_s, error)) return false;
  if (!Seconds("duration", args.duration, &c->duration_s, error)) return false;
  return true;
}

// Markers, framework operators, the CUDA APIs, --model-execution, --hccl.
bool ResolveMarkerAndApiOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  if (!OnOff("msproftx", args.msproftx, &c->msproftx, error)) return false;
  c->mstx_domain_include = SplitList(args.mstx_domain_include, ',');
  c->mstx_domain_exclude = SplitList(args.mstx_domain_exclude, ',');
  if (!c->mstx_domain_include.empty() && !c->mstx_domain_exclude.empty()) {
    *error = "--mstx-domain-include and --mstx-domain-exclude are mutually exclusive; give one";
    return false;
  }
  if ((!c->mstx_domain_include.empty() || !c->mstx_domain_exclude.empty()) && !c->msproftx) {
    *error = std::string(c->mstx_domain_include.empty() ? "--mstx-domain-exclude"
                                                        : "--mstx-domain-include") +
             " needs --msproftx=on";
    return false;
  }

  if (!OneOf("task-time", args.task_time, {"off", "on", "l0", "l1", "l2"}, error)) return false;
  c->task_time = args.task_time == "on" ? "l1" : args.task_time;
  if (!OnOff("task-memory", args.task_memory, &c->profile_memory, error)) return false;
  if (!OnOff("ascendcl", args.ascendcl, &c->cuda_runtime_api, error)) return false;
  if (!OnOff("runtime-api", args.runtime_api, &c->cuda_driver_api, error)) return false;
  // msprof's model-execution data (model load/execute times) is folded into --task-time
  // there; here its counterpart, the step (iteration) records, are in every window.
  if (!args.model_execution.empty() && args.model_execution != "on") {
    *error = args.model_execution == "off"
                 ? "--model-execution=off: step (iteration) records are always collected "
                   "(--iteration-id needs them); leave the option out"
                 : Quote("model-execution", args.model_execution) +
                       ": invalid value; allowed: on (step records are always collected)";
    return false;
  }
  if (!OnOff("hccl", args.hccl, &c->hccl, error)) return false;
  return true;
}

// Kernel metrics (--ai-core, --aic-*), --l2, --aicpu, --sys-hardware-mem.
bool ResolveDeviceOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  if (args.ai_core.empty()) {
    c->ai_core = c->task_time == "l1" || c->task_time == "l2";
    c->ai_core_default = !Given(args, "aic-metrics");
  } else if (!OnOff("ai-core", args.ai_core, &c->ai_core, error)) {
    return false;
  }
  if (!OneOf("aic-mode", args.aic_mode, {"task-based", "sample-based"}, error)) return false;
  if (args.aic_mode == "sample-based") {
    *error =
        "--aic-mode=sample-based: not supported on NVIDIA GPUs (CUPTI measures kernel metrics "
        "per kernel); use --aic-mode=task-based (the default)";
    return false;
  }
  c->aic_mode = args.aic_mode;
  if (!OneOf("aic-metrics", args.aic_metrics,
             {"ArithmeticUtilization", "PipeUtilization", "Memory", "MemoryL0",
              "ResourceConflictRatio", "MemoryUB", "L2Cache", "MemoryAccess"},
             error)) {
    return false;
  }
  c->aic_metrics = args.aic_metrics;
  if (Given(args, "aic-metrics") && !c->ai_core) {
    *error = Quote("aic-metrics", args.aic_metrics) +
             ": needs --ai-core=on (it is off with --task-time=off|l0 or --ai-core=off)";
    return false;
  }
  uint64_t value = 0;
  if (!Integer("aic-freq", args.aic_freq, 1, 100, &value, error)) return false;
  if (Given(args, "aic-freq")) {
    *error = Quote("aic-freq", args.aic_freq) +
             ": applies to --aic-mode=sample-based, which NVIDIA GPUs do not support; kernel "
             "metrics are taken per kernel (task-based), leave --aic-freq out";
    return false;
  }
  if (!OnOff("l2", args.l2, &c->l2, error)) return false;
  bool aicpu = false;
  if (!OnOff("aicpu", args.aicpu, &aicpu, error)) return false;
  if (aicpu) {
    *error =
        "--aicpu=on: Ascend AI CPU operators do not exist on this platform; CPU-side "
        "operators are recorded by --task-time (on by default)";
    return false;
  }
  bool hardware_mem = false;
  if (!OnOff("sys-hardware-mem", args.sys_hardware_mem, &hardware_mem, error)) return false;
  if (!Integer("sys-hardware-mem-freq", args.sys_hardware_mem_freq, 1, MaxOf("device_sys_freq_hz"),
               &value, error)) {
    return false;
  }
  c->device_sys_freq_hz = hardware_mem ? static_cast<int>(value) : 0;
  if (!RejectUnpaced(args, "sys-hardware-mem-freq", hardware_mem, "--sys-hardware-mem", error)) {
    return false;
  }
  return true;
}

// --sys-cpu-profiling and its frequency, call graph and off-CPU stacks.
bool ResolveCpuSamplingOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  uint64_t value = 0;
  bool sys_cpu = false;
  if (!OnOff("sys-cpu-profiling", args.sys_cpu_profiling, &sys_cpu, error)) return false;
  if (!Integer("sys-cpu-freq", args.sys_cpu_freq, 1, MaxOf("cpu_sampling.freq_hz"), &value,
               error)) {
    return false;
  }
  c->cpu_sampling_hz = sys_cpu ? static_cast<uint32_t>(value) : 0;
  if (!RejectUnpaced(args, "sys-cpu-freq", sys_cpu, "--sys-cpu-profiling", error)) return false;
  if (!RejectUnpaced(args, "sys-cpu-call-graph", sys_cpu, "--sys-cpu-profiling", error)) {
    return false;
  }
  std::string call_graph = args.sys_cpu_call_graph;
  size_t comma = call_graph.find(',');
  c->cpu_call_graph = call_graph.substr(0, comma);
  if (!OneOf("sys-cpu-call-graph", c->cpu_call_graph, {"fp", "dwarf"}, error)) return false;
  if (comma != std::string::npos) {
    if (c->cpu_call_graph != "dwarf") {
      *error = Quote("sys-cpu-call-graph", call_graph) + ": a stack size goes with dwarf only";
      return false;
    }
    if (!Integer("sys-cpu-call-graph", call_graph.substr(comma + 1),
                 MinOf("cpu_sampling.stack_copy_bytes"), MaxOf("cpu_sampling.stack_copy_bytes"),
                 &value, error)) {
      return false;
    }
    c->cpu_stack_copy_bytes = static_cast<uint32_t>(value);
  }
  if (!RejectUnpaced(args, "sys-cpu-off-cpu-stacks", sys_cpu, "--sys-cpu-profiling", error)) {
    return false;
  }
  c->cpu_off_cpu_stacks = args.sys_cpu_off_cpu_stacks;
  if (sys_cpu && c->cpu_off_cpu_stacks != "all" && c->cpu_off_cpu_stacks != "off") {
    if (!Integer("sys-cpu-off-cpu-stacks", c->cpu_off_cpu_stacks, 1, 10000, &value, error)) {
      *error += " (or all, off)";
      return false;
    }
    c->cpu_off_cpu_stacks = std::to_string(value);
  }
  return true;
}

// --host-sys (osrt included), --host-sys-usage, --sys-profiling, --sys-pid-profiling:
// one sampler at the highest frequency asked for.
bool ResolveHostSamplingOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  host::HostSamplerOptions& s = c->sampler;
  bool osrt = false;
  for (const std::string& item : SplitList(args.host_sys, ',')) {
    if (!OneOf("host-sys", item, {"cpu", "mem", "disk", "network", "osrt"}, error)) {
      *error = Quote("host-sys", args.host_sys) + ": unknown item '" + item +
               "'; allowed: a comma list of cpu,mem,disk,network,osrt";
      return false;
    }
    if (item == "cpu") s.process_cpu = true;
    if (item == "mem") s.process_mem = true;
    if (item == "disk") s.process_disk = true;
    if (item == "network") s.network = true;
    if (item == "osrt") osrt = true;
  }
  if (Given(args, "host-sys") && SplitList(args.host_sys, ',').empty()) {
    *error = Quote("host-sys", args.host_sys) +
             ": empty; allowed: a comma list of cpu,mem,disk,network,osrt";
    return false;
  }
  for (const std::string& item : SplitList(args.host_sys_usage, ',')) {
    if (item != "cpu" && item != "mem") {
      *error = Quote("host-sys-usage", args.host_sys_usage) + ": unknown item '" + item +
               "'; allowed: a comma list of cpu,mem";
      return false;
    }
    if (item == "cpu") s.machine_cpu = true;
    if (item == "mem") s.machine_mem = true;
  }
  uint64_t usage_hz = 0, sys_hz = 0, pid_hz = 0;
  if (!Integer("host-sys-usage-freq", args.host_sys_usage_freq, 1, 50, &usage_hz, error)) {
    return false;
  }
  bool sys_profiling = false, pid_profiling = false;
  if (!OnOff("sys-profiling", args.sys_profiling, &sys_profiling, error)) return false;
  if (!Integer("sys-sampling-freq", args.sys_sampling_freq, 1, 10, &sys_hz, error)) return false;
  if (!OnOff("sys-pid-profiling", args.sys_pid_profiling, &pid_profiling, error)) return false;
  if (!Integer("sys-pid-sampling-freq", args.sys_pid_sampling_freq, 1, 10, &pid_hz, error)) {
    return false;
  }
  if (!RejectUnpaced(args, "host-sys-usage-freq", s.AnyEnabled(), "--host-sys / --host-sys-usage",
                     error) ||
      !RejectUnpaced(args, "sys-sampling-freq", sys_profiling, "--sys-profiling", error) ||
      !RejectUnpaced(args, "sys-pid-sampling-freq", pid_profiling, "--sys-pid-profiling", error)) {
    return false;
  }
  uint64_t hz = 0;
  if (s.AnyEnabled()) hz = usage_hz;
  if (sys_profiling) {
    s.machine_cpu = s.machine_mem = true;
    hz = std::max(hz, sys_hz);
  }
  if (pid_profiling) {
    s.process_cpu = s.process_mem = true;
    hz = std::max(hz, pid_hz);
  }
  s.sample_hz = static_cast<double>(hz ? hz : usage_hz);
  c->osrt = osrt;
  return true;
}

// --follow-children, --export, --environment and the application (--application or argv).
bool ResolveApplicationOptions(const CollectArgs& args, CollectConfig* c, std::string* error) {
  if (!OnOff("follow-children", args.follow_children, &c->follow_children, error)) return false;
  if (!OnOff("export", args.export_after, &c->export_after, error)) return false;
  for (const std::string& item : SplitList(args.environment, ';')) {
    size_t equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      *error = Quote("environment", args.environment) + ": entry '" + item +
               "' is not NAME=VALUE; allowed: \"NAME=VALUE;NAME=VALUE\"";
      return false;
    }
    c->environment.push_back(item);
  }

  c->app = args.app;
  if (!args.application.empty()) {
    if (!c->app.empty()) {
      *error = "--application and an app after the options were both given; use one";
      return false;
    }
    if (!SplitCommandLine(args.application, &c->app) || c->app.empty()) {
      *error = Quote("application", args.application) +
               ": not a command line (empty or unbalanced quotes)";
      return false;
    }
  }
  if (c->app.empty()) {
    *error = "no application given: aiprof collect [options] <app> [app args]";
    return false;
  }
  return true;
}

}  // namespace

bool ResolveCollectArgs(const CollectArgs& args, const Machine& machine, CollectConfig* c,
                        std::string* error) {
  if (!ResolveOutputOptions(args, c, error) || !ResolveMarkerAndApiOptions(args, c, error) ||
      !ResolveDeviceOptions(args, c, error) || !ResolveCpuSamplingOptions(args, c, error) ||
      !ResolveHostSamplingOptions(args, c, error) || !ResolveApplicationOptions(args, c, error)) {
    return false;
  }
  AddNotes(args, machine, c);
  return true;
}

}  // namespace aiprof::cli
