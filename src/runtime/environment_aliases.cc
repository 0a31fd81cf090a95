// The seeds' environment variables as aliases of aiprof's own, so jobs set up for msprof /
// the Ascend stack run unchanged: PROFILING_MODE=dynamic is AIPROF_MODE=dynamic (attach
// mode, seed 004), PROFILING_MODE=true with PROFILING_OPTIONS is AIPROF_OPTIONS (collect
// from load, seed 001's TensorFlow form), MS_PROFILER_OPTIONS with "start": true is
// AIPROF_OPTIONS too (MindSpore's Profiler by environment, seed 003), and PROF_CONFIG_PATH
// is AIPROF_CONFIG_PATH (torch_npu's dynamic_profile without code changes, read in
// dynamic/dynamic_entry.cc). aiprof's own variables win when both are set. This runs before
// the other load-time constructors of the library (lower priority number), which read only
// the aiprof names.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace aiprof::runtime {
namespace {

bool IsSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

// PROFILING_OPTIONS uses the framework adapters' key names; the ones with an aiprof
// equivalent are renamed, every other key passes through as an aiprof option.
std::string TranslateProfilingOptions(const char* text) {
  auto options = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!options.is_object()) return text;  // the option parser reports the error
  if (auto task_trace = options.find("task_trace");
      task_trace != options.end() && !options.contains("task_time")) {
    options["task_time"] = *task_trace;
  }
  options.erase("task_trace");
  return options.dump();
}

bool BoolOr(const nlohmann::json& options, const char* key, bool fallback) {
  auto found = options.find(key);
  return found != options.end() && found->is_boolean() ? found->get<bool>() : fallback;
}

// MindSpore's MS_PROFILER_OPTIONS (seed 003) as aiprof options, or "" when it asks for no
// collection ("start" not true) or cannot be read (said on stderr). Keys with an aiprof
// equivalent are mapped; keys that select Ascend hardware or MindSpore internals are
// refused by name on stderr and ignored, so the job runs and the user knows what is missing.
std::string TranslateMindSporeOptions(const char* text) {
  auto given = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!given.is_object()) {
    std::fprintf(stderr,
                 "aiprof: MS_PROFILER_OPTIONS is not a JSON object; profiling not "
                 "started\n");
    return "";
  }
  if (!BoolOr(given, "start", false)) return "";
  nlohmann::json options = nlohmann::json::object();
  auto output = given.find("output_path");
  options["output"] = output != given.end() && output->is_string() ? output->get<std::string>()
                                                                   : std::string("./data");
  options["task_time"] = BoolOr(given, "op_time", true) ? "on" : "off";
  options["profile_memory"] = BoolOr(given, "profile_memory", false);
  if (BoolOr(given, "profile_communication", false)) {
    // Collectives come from the framework operators; their message sizes need the inputs.
    options["hccl"] = true;
    options["record_shapes"] = true;
  }
  options["l2"] = BoolOr(given, "l2_cache", false);  // the CUDA source's L2 hit rates
  for (const auto& [key, value] : given.items()) {
    const char* why = nullptr;
    if (key == "aicore_metrics") {
      if (value.is_number_integer() && value.get<int64_t>() < 0) continue;  // -1: none
      why = "selects Ascend AI Core counters (NPU only)";
    } else if (key == "timeline_limit") {
      why = "caps MindInsight's timeline file; aiprof's timeline holds every event";
    } else if (key == "parallel_strategy") {
      why = "is MindSpore's graph parallel strategy, which only MindSpore records";
    } else if (key == "data_process") {
      if (BoolOr(given, "data_process", true)) continue;  // always on here, with op_time
      why = "cannot be turned off: data loading is recorded with the operators";
    } else if (key != "start" && key != "output_path" && key != "op_time" &&
               key != "profile_memory" && key != "profile_communication" && key != "l2_cache") {
      why = "is not a MindSpore Profiler option aiprof knows";
    }
    if (why != nullptr) {
      std::fprintf(stderr, "aiprof: MS_PROFILER_OPTIONS \"%s\" %s; ignored\n", key.c_str(), why);
    }
  }
  return options.dump();
}

__attribute__((constructor(200))) void AdoptSeedEnvironmentAliases() {
  // A job launched by `aiprof` has AIPROF_OPTIONS: the launcher's settings win (seed 004:
  // PROFILING_MODE/PROFILING_OPTIONS cannot be set for an app run in launch mode).
  if (IsSet("AIPROF_OPTIONS")) return;
  const char* profiling_mode = std::getenv("PROFILING_MODE");
  if (profiling_mode != nullptr && std::strcmp(profiling_mode, "dynamic") == 0) {
    if (!IsSet("AIPROF_MODE")) setenv("AIPROF_MODE", "dynamic", 1);
    return;
  }
  if (profiling_mode != nullptr && std::strcmp(profiling_mode, "true") == 0) {
    const char* profiling_options = std::getenv("PROFILING_OPTIONS");
    const std::string options = profiling_options != nullptr && profiling_options[0] != '\0'
                                    ? TranslateProfilingOptions(profiling_options)
                                    : std::string("{}");
    setenv("AIPROF_OPTIONS", options.c_str(), 1);
    return;
  }
  if (IsSet("MS_PROFILER_OPTIONS")) {
    const std::string options = TranslateMindSporeOptions(std::getenv("MS_PROFILER_OPTIONS"));
    if (!options.empty()) setenv("AIPROF_OPTIONS", options.c_str(), 1);
  }
}

}  // namespace
}  // namespace aiprof::runtime
