// What each collection option accepts, defined once for every way options arrive: the aiprof
// command line (src/cli/collect_options.cc), AIPROF_OPTIONS read at load, a `start` on the
// control socket and profiler_config.json (both through runtime::SetOption). Header-only,
// like dynamic/protocol.h: it is the contract between the CLI and the runtime, which
// validates with it whatever the source, so a value the command line refuses is refused
// everywhere, naming the option.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace aiprof::runtime {

struct NumericOption {
  std::string_view key;       // AIPROF_OPTIONS key; "a.b" is key b of object a
  std::string_view cli_name;  // the aiprof option setting it, "" for keys the launcher sets
  double min;
  double max;
  bool integer;
};

inline constexpr double kMaxU32 = 4294967295.0;

inline constexpr NumericOption kNumericOptions[] = {
    {"buffer_mb", "--buffer-size", 1, 4096, true},
    {"storage_limit_mb", "--storage-limit", 0, kMaxU32, true},  // 0: no limit
    {"delay_s", "--delay", 0, kMaxU32, false},
    {"duration_s", "--duration", 0, kMaxU32, false},
    {"device_sys_freq_hz", "--sys-hardware-mem-freq", 0, 100, true},  // 0: off
    {"cpu_sampling.freq_hz", "--sys-cpu-freq", 0, 10000, true},       // 0: off
    {"cpu_sampling.stack_copy_bytes", "--sys-cpu-call-graph", 1024, 32768, true},
    {"osrt.threshold_ns", "", 0, 1e12, true},
    {"flush_interval_ms", "", 1, 3600000, true},
    {"launcher_pid", "", 0, 4194304, true},
    {"seq", "", -1, 999999, true},  // -1: the next free number
    {"launch_realtime_ns", "", 0, 9.2e18, true},
};

struct ChoiceOption {
  std::string_view key;
  std::string_view cli_name;
  std::string_view choices[8];  // the allowed strings; the rest of the array is empty
};

inline constexpr ChoiceOption kChoiceOptions[] = {
    {"mode", "", {"launch", "dynamic", "api"}},
    {"task_time", "--task-time", {"off", "on", "l0", "l1", "l2"}},  // on: l1
    {"aic_mode", "--aic-mode", {"task-based", "sample-based"}},
    {"cpu_sampling.call_graph", "--sys-cpu-call-graph", {"fp", "dwarf"}},
};

inline const NumericOption* FindNumericOption(std::string_view key) {
  for (const NumericOption& option : kNumericOptions) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

inline const ChoiceOption* FindChoiceOption(std::string_view key) {
  for (const ChoiceOption& option : kChoiceOptions) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

// "option 'buffer_mb' (--buffer-size)".
inline std::string OptionLabel(std::string_view key, std::string_view cli_name) {
  std::string label = "option '" + std::string(key) + "'";
  if (!cli_name.empty()) label += " (" + std::string(cli_name) + ")";
  return label;
}

inline std::string NumberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

// "" when `value` is acceptable for numeric option `key` (or `key` has no range here), else
// what is wrong: "option 'buffer_mb' (--buffer-size): 999999 is not in 1..4096".
inline std::string CheckNumericOption(std::string_view key, double value) {
  const NumericOption* option = FindNumericOption(key);
  if (option == nullptr) return "";
  const bool whole = std::floor(value) == value;
  if (std::isfinite(value) && value >= option->min && value <= option->max &&
      (whole || !option->integer)) {
    return "";
  }
  return OptionLabel(key, option->cli_name) + ": " + NumberText(value) + " is not " +
         (option->integer ? "an integer " : "") + "in " + NumberText(option->min) + ".." +
         NumberText(option->max);
}

// "" when `value` is one of the choices of `key` (or `key` has none), else what is wrong.
inline std::string CheckChoiceOption(std::string_view key, std::string_view value) {
  const ChoiceOption* option = FindChoiceOption(key);
  if (option == nullptr) return "";
  std::string allowed;
  for (std::string_view choice : option->choices) {
    if (choice.empty()) break;
    if (choice == value) return "";
    allowed += (allowed.empty() ? "" : "|") + std::string(choice);
  }
  return OptionLabel(key, option->cli_name) + ": '" + std::string(value) + "' is not one of " +
         allowed;
}

}  // namespace aiprof::runtime
