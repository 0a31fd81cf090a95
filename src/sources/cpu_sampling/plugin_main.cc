// libaiprof_cpusampling.so: preloaded after libaiprof.so when CPU sampling is on
// (`--sys-cpu-profiling=on` or `--host-sys=cpu`); registers a source whose hooks start the
// sampler with each window, drain it at every flush (writer thread) and stop it.
//
// Options (AIPROF_OPTIONS, docs/cpu-sampling.md): "cpu_sampling": {"freq_hz": 99,
// "mode": "auto" | "perf" | "timer", "off_cpu_stacks": "<Hz>" | "all" | "off" (default
// all)}. auto: perf_event_open, else the timer fallback; freq_hz 0: off.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "aiprof/plugin.h"
#include "format/records_cpu.h"
#include "sources/cpu_sampling/perf_sampler.h"
#include "sources/cpu_sampling/python_stack.h"
#include "sources/cpu_sampling/timer_sampler.h"

namespace aiprof::cpu_sampling {
namespace {

struct Options {
  uint32_t hz = 99;
  std::string mode = "auto";
  // "fp": frame-pointer call chains; "dwarf": user stack copies unwound at export.
  std::string call_graph = "fp";
  uint32_t stack_copy_bytes = 8192;
  OffCpuStacks off_cpu_stacks;
};

// "all", "off" or a rate in Hz (1..10000); anything else keeps the default (every switch).
OffCpuStacks ParseOffCpuStacks(const std::string& text) {
  OffCpuStacks stacks;
  if (text == "all") {
    stacks.kind = OffCpuStacks::Kind::kEverySwitch;
  } else if (text == "off") {
    stacks.kind = OffCpuStacks::Kind::kOff;
  } else {
    unsigned long hz = std::strtoul(text.c_str(), nullptr, 10);
    if (hz >= 1 && hz <= 10000) {
      stacks.kind = OffCpuStacks::Kind::kRate;
      stacks.hz = static_cast<uint32_t>(hz);
    }
  }
  return stacks;
}

// `event`: the one that took the stacks (PerfSampler::off_cpu_event).
std::string DescribeOffCpuStacks(const OffCpuStacks& stacks, const std::string& event) {
  switch (stacks.kind) {
    case OffCpuStacks::Kind::kEverySwitch:
      return ", thread switches with the blocking stack of every switch (" + event +
             (event == "sched_switch" ? " tracepoint: blocking switch-outs only)"
                                      : " event: every switch-out, preemptions included)");
    case OffCpuStacks::Kind::kOff:
      return ", thread switches without blocking stacks";
    case OffCpuStacks::Kind::kRate:
      break;
  }
  return ", thread switches with blocking stacks (every switch of a thread switching under " +
         std::to_string(stacks.hz) + " times a second, else about " + std::to_string(stacks.hz) +
         " a second)";
}

Options ReadOptions() {
  Options options;
  nlohmann::json json = nlohmann::json::parse(aiprof_options_json(), nullptr, false);
  if (!json.is_object()) json = nlohmann::json::object();
  auto found = json.find("cpu_sampling");
  if (found == json.end() || !found->is_object()) found = json.end();
  if (found != json.end()) {
    options.hz = found->value("freq_hz", options.hz);
    options.mode = found->value("mode", options.mode);
    options.call_graph = found->value("call_graph", options.call_graph);
    options.stack_copy_bytes = found->value("stack_copy_bytes", options.stack_copy_bytes);
  }
  if (options.hz > 10000) options.hz = 10000;
  options.off_cpu_stacks = ParseOffCpuStacks(
      found != json.end() ? found->value("off_cpu_stacks", std::string()) : std::string());
  // Forces a mode without editing the options (tests, or to compare the two modes).
  if (const char* mode = std::getenv("AIPROF_CPU_SAMPLING_MODE"); mode != nullptr && *mode) {
    options.mode = mode;
  }
  return options;
}

struct State {
  std::mutex mutex;
  PerfSampler perf;
  TimerSampler timer;
  format::CpuSamplingMode mode = format::CpuSamplingMode::kNone;
  uint32_t hz = 0;  // the rate sampling started at
};

State& GetState() {
  static State* state = new State();
  return *state;
}

void EmitInfo(format::CpuSamplingMode mode, const std::string& reason, uint32_t hz) {
  struct {
    format::RecordHeader header;
    uint64_t period_ns;
    uint64_t freq_hz;
  } record{};
  record.header = {aiprof_now(), static_cast<uint8_t>(format::CpuRecordKind::kCpuSamplingInfo), 1,
                   static_cast<uint16_t>(mode), aiprof_intern(reason.data(), reason.size())};
  record.period_ns = 1000000000ull / hz;
  record.freq_hz = hz;
  aiprof_emit(&record, 2);
  std::fprintf(stderr, "aiprof: CPU sampling: %s\n", reason.c_str());
}

void OnStart(void*) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mutex);
  Options options = ReadOptions();
  if (options.hz == 0) return;  // "freq_hz": 0 is off
  state.hz = options.hz;
  std::string hz = " at " + std::to_string(options.hz) + " Hz";
  // A CPython whose frames can be read: auto takes the timer mode, whose handler runs on
  // the sampled thread at the sample's instant and can read its Python frame chain (in
  // perf_event mode the kernel takes the sample and no code of ours runs then).
  std::string python;
  bool python_frames = EnablePythonStacks(&python);
  bool prefer_timer = options.mode == "timer" || (options.mode == "auto" && python_frames);
  if (!python_frames) DisablePythonStacks();
  std::string perf_why;
  if (!prefer_timer) {
    uint32_t stack_copy = options.call_graph == "dwarf" ? options.stack_copy_bytes : 0;
    if (state.perf.Start(options.hz, stack_copy, options.off_cpu_stacks, &perf_why)) {
      state.mode = format::CpuSamplingMode::kPerfEvent;
      std::string stacks =
          state.perf.stack_copy_bytes() > 0
              ? ", DWARF call stacks (" + std::to_string(state.perf.stack_copy_bytes()) +
                    " bytes of user stack per sample" +
                    (state.perf.blocking_stack_copies() ? ", blocking stacks included" : "") +
                    ", unwound at export" +
                    (state.perf.off_cpu() && !state.perf.blocking_stack_copies()
                         ? "; blocking stacks as frame-pointer chains)"
                         : ")")
              : ", frame-pointer call chains";
      DisablePythonStacks();
      EmitInfo(state.mode,
               "perf_event " + state.perf.event_name() + hz + stacks +
                   (state.perf.off_cpu() || options.off_cpu_stacks.kind == OffCpuStacks::Kind::kOff
                        ? DescribeOffCpuStacks(options.off_cpu_stacks, state.perf.off_cpu_event())
                        : ", thread switches (the kernel refused blocking stacks)") +
                   (python_frames    ? "; no Python frames (they need the timer mode: "
                                       "AIPROF_CPU_SAMPLING_MODE=timer or auto)"
                    : python.empty() ? ""
                                     : "; " + python),
               options.hz);
      return;
    }
    if (options.mode == "perf") {
      state.mode = format::CpuSamplingMode::kNone;
      EmitInfo(state.mode, "off: perf_event_open refused (" + perf_why + ") and mode is perf",
               options.hz);
      return;
    }
  }
  std::string because =
      options.mode == "timer" ? "forced by cpu_sampling.mode=timer"
      : prefer_timer
          ? "a CPython process: the timer mode reads its Python frames at each sample "
            "(AIPROF_CPU_SAMPLING_MODE=perf for thread switches without Python frames)"
          : "perf_event_open refused: " + perf_why + " (see /proc/sys/kernel/perf_event_paranoid)";
  std::string timer_why;
  if (state.timer.Start(options.hz, python_frames, &timer_why)) {
    state.mode = format::CpuSamplingMode::kTimer;
    EmitInfo(state.mode,
             "timer fallback (SIGPROF per thread CPU time)" + hz + ", " + because +
                 "; frame-pointer call chains" +
                 (options.call_graph == "dwarf" ? " (call_graph dwarf needs perf_event)" : "") +
                 "; no thread switches" + (python.empty() ? "" : "; " + python),
             options.hz);
    return;
  }
  DisablePythonStacks();
  state.mode = format::CpuSamplingMode::kNone;
  EmitInfo(state.mode, "off: " + because + "; timer fallback failed: " + timer_why, options.hz);
}

void OnFlush(void*) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.mode == format::CpuSamplingMode::kPerfEvent) {
    // The job may have closed the events' descriptors (every descriptor above 2): their
    // events are gone, opened again here, and the loss is said in the exports.
    std::string reopened = state.perf.ReopenClosedEvents();
    if (!reopened.empty()) EmitInfo(state.mode, reopened, state.hz);
    state.perf.Drain();
  }
  if (state.mode == format::CpuSamplingMode::kTimer) state.timer.Drain();
}

void OnStop(void*) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.mode == format::CpuSamplingMode::kPerfEvent) state.perf.Stop();
  if (state.mode == format::CpuSamplingMode::kTimer) state.timer.Stop();
  DisablePythonStacks();
  state.mode = format::CpuSamplingMode::kNone;
}

void OnForkChild(void*) {
  State& state = GetState();
  new (&state.mutex) std::mutex();
  state.perf.AbandonAfterFork();
  state.timer.AbandonAfterFork();
  state.mode = format::CpuSamplingMode::kNone;
}

const aiprof_source kSource = {
    AIPROF_PLUGIN_ABI_VERSION, "cpu_sampling", OnStart, OnStop, OnFlush, OnForkChild, nullptr};

__attribute__((constructor)) void RegisterWhenLoaded() {
  aiprof_register_source(&kSource);
}

}  // namespace
}  // namespace aiprof::cpu_sampling
