// Launch mode for Python jobs (`aiprof --task-time=on python3 train.py`): the runtime is
// preloaded before the interpreter starts, so at load time it puts aiprof's launch-hook
// directory first on PYTHONPATH. Python then imports the hook's sitecustomize.py, which
// waits for `import torch` and loads libaiprof_torch.so into this runtime; the script
// itself is unchanged. Nothing happens when task_time is off, when AIPROF_OPTIONS is
// absent (programs that only link the control API), or when the hook directory is not
// installed next to the library. Programs that are not Python ignore PYTHONPATH.
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

namespace aiprof::runtime {
namespace {

bool TaskTimeOn(const char* options_json) {
  auto options = nlohmann::json::parse(options_json, nullptr, /*allow_exceptions=*/false);
  if (!options.is_object()) return false;
  auto task_time = options.find("task_time");
  return task_time != options.end() && task_time->is_string() &&
         task_time->get<std::string>() != "off";
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
  const char* options = getenv("AIPROF_OPTIONS");
  if (options == nullptr || !TaskTimeOn(options)) return;
  const std::string hook = HookDirectory();
  if (hook.empty() || access((hook + "/sitecustomize.py").c_str(), R_OK) != 0) return;
  const char* current = getenv("PYTHONPATH");
  std::string path = current ? current : "";
  if (path == hook || path.rfind(hook + ":", 0) == 0) return;  // already first (children)
  setenv("PYTHONPATH", path.empty() ? hook.c_str() : (hook + ":" + path).c_str(), 1);
}

}  // namespace
}  // namespace aiprof::runtime
