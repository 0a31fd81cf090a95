// Python jobs with a preloaded runtime (`aiprof --task-time=on python3 train.py`, or
// `AIPROF_MODE=dynamic LD_PRELOAD=libaiprof.so python3 train.py` for a later attach, or
// `PROF_CONFIG_PATH=dir` for dynamic_profile): the runtime is loaded before the
// interpreter starts, so at load time it puts aiprof's launch-hook directory first on
// PYTHONPATH. Python then imports the hook's sitecustomize.py, which waits for
// `import torch` and loads libaiprof_torch.so into this runtime; the script itself is
// unchanged. The plugin adds its RecordFunction callback only while a window is open, so
// a dynamic-mode job that is never attached to pays nothing. Nothing happens when
// task_time is off, when neither AIPROF_OPTIONS nor a dynamic mode is set (programs that
// only link the control API), or when the hook directory is not installed next to the
// library. Programs that are not Python ignore PYTHONPATH.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

namespace aiprof::runtime {
namespace {

bool TaskTimeOn(const nlohmann::json& options) {
  auto task_time = options.find("task_time");
  return task_time != options.end() && task_time->is_string() &&
         task_time->get<std::string>() != "off";
}

bool IsSet(const char* name) {
  const char* value = getenv(name);
  return value != nullptr && value[0] != '\0';
}

// Windows are opened later, on command (control socket) or by a dynamic_profile config
// edit; environment aliases (PROFILING_MODE) were adopted by environment_aliases.cc.
bool DynamicCollectionRequested(const nlohmann::json& options) {
  const char* mode = getenv("AIPROF_MODE");
  if (mode != nullptr && std::string(mode) == "dynamic") return true;
  if (options.is_object() && options.value("mode", "") == "dynamic") return true;
  return IsSet("AIPROF_CONFIG_PATH") || IsSet("PROF_CONFIG_PATH");
}

bool TorchOperatorsWanted() {
  const char* text = getenv("AIPROF_OPTIONS");
  const auto options = nlohmann::json::parse(text != nullptr ? text : "{}", nullptr,
                                             /*allow_exceptions=*/false);
  if (DynamicCollectionRequested(options)) return true;
  return text != nullptr && options.is_object() && TaskTimeOn(options);
}

// <dir of libaiprof.so>/../python/aiprof_launch_hook (the build tree and the installed
// layout), or $AIPROF_PYTHON_HOOK_DIR.
std::string HookDirectory() {
  if (const char* explicit_dir = getenv("AIPROF_PYTHON_HOOK_DIR")) return explicit_dir;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&HookDirectory), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string library = info.dli_fname;
  const size_t slash = library.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string candidate = library.substr(0, slash) + "/../python/aiprof_launch_hook";
  char resolved[PATH_MAX];
  if (realpath(candidate.c_str(), resolved) == nullptr) return "";
  return resolved;
}

__attribute__((constructor)) void AddPythonLaunchHook() {
  if (!TorchOperatorsWanted()) return;
  const std::string hook = HookDirectory();
  if (hook.empty() || access((hook + "/sitecustomize.py").c_str(), R_OK) != 0) return;
  const char* current = getenv("PYTHONPATH");
  std::string path = current ? current : "";
  if (path == hook || path.rfind(hook + ":", 0) == 0) return;  // already first (children)
  setenv("PYTHONPATH", path.empty() ? hook.c_str() : (hook + ":" + path).c_str(), 1);
}

}  // namespace
}  // namespace aiprof::runtime
