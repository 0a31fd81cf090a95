// The seeds' environment variables as aliases of aiprof's own, so jobs set up for msprof /
// the Ascend stack run unchanged: PROFILING_MODE=dynamic is AIPROF_MODE=dynamic (attach
// mode, seed 004), PROFILING_MODE=true with PROFILING_OPTIONS is AIPROF_OPTIONS (collect
// from load, seed 001's TensorFlow form), and PROF_CONFIG_PATH is AIPROF_CONFIG_PATH
// (torch_npu's dynamic_profile without code changes, read in dynamic/dynamic_entry.cc).
// aiprof's own variables win when both are set. This runs before the other load-time
// constructors of the library (lower priority number), which read only the aiprof names.
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

__attribute__((constructor(200))) void AdoptSeedEnvironmentAliases() {
  const char* profiling_mode = std::getenv("PROFILING_MODE");
  // A job launched by `aiprof` has AIPROF_OPTIONS: the launcher's settings win (seed 004:
  // PROFILING_MODE/PROFILING_OPTIONS cannot be set for an app run in launch mode).
  if (profiling_mode == nullptr || IsSet("AIPROF_OPTIONS")) return;
  if (std::strcmp(profiling_mode, "dynamic") == 0) {
    if (!IsSet("AIPROF_MODE")) setenv("AIPROF_MODE", "dynamic", 1);
    return;
  }
  if (std::strcmp(profiling_mode, "true") != 0) return;
  const char* profiling_options = std::getenv("PROFILING_OPTIONS");
  const std::string options = profiling_options != nullptr && profiling_options[0] != '\0'
                                  ? TranslateProfilingOptions(profiling_options)
                                  : std::string("{}");
  setenv("AIPROF_OPTIONS", options.c_str(), 1);
}

}  // namespace
}  // namespace aiprof::runtime
