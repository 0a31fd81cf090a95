#include "runtime_api.h"

#include <dlfcn.h>

namespace aiprof::python {
namespace {

RuntimeApi g_api;
bool g_loaded = false;

template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* out, std::string* error) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    *error = std::string("the aiprof runtime lacks the symbol ") + name +
             " (a runtime older than this Python package?)";
    return false;
  }
  *out = reinterpret_cast<Fn>(symbol);
  return true;
}

}  // namespace

bool LoadRuntime(const std::string& path, std::string* error) {
  if (g_loaded) return true;
  void* handle = nullptr;
  if (path.empty()) {
    handle = dlopen(nullptr, RTLD_NOW | RTLD_GLOBAL);
    if (handle != nullptr && dlsym(handle, "aiprofInit") == nullptr) handle = nullptr;
  } else {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  }
  if (handle == nullptr) {
    const char* reason = dlerror();
    *error = "cannot load the aiprof runtime " + (path.empty() ? "(not preloaded)" : path) + ": " +
             (reason ? reason : "not found") +
             ". Build it (make) or set AIPROF_RUNTIME_LIB to libaiprof.so.";
    return false;
  }
  RuntimeApi api;
  bool ok = Resolve(handle, "aiprofInit", &api.init, error) &&
            Resolve(handle, "aiprofCreateConfig", &api.create_config, error) &&
            Resolve(handle, "aiprofConfigSetOption", &api.config_set_option, error) &&
            Resolve(handle, "aiprofDestroyConfig", &api.destroy_config, error) &&
            Resolve(handle, "aiprofStart", &api.start, error) &&
            Resolve(handle, "aiprofStop", &api.stop, error) &&
            Resolve(handle, "aiprofFinalize", &api.finalize, error) &&
            Resolve(handle, "aiprofStepBegin", &api.step_begin, error) &&
            Resolve(handle, "aiprofStepEnd", &api.step_end, error) &&
            Resolve(handle, "aiprofIsCollecting", &api.is_collecting, error) &&
            Resolve(handle, "aiprofCurrentDir", &api.current_dir, error) &&
            Resolve(handle, "aiprofLastError", &api.last_error, error) &&
            Resolve(handle, "aiprof_now", &api.now, error) &&
            Resolve(handle, "aiprof_intern", &api.intern, error) &&
            Resolve(handle, "aiprof_emit", &api.emit, error) &&
            Resolve(handle, "aiprof_next_id", &api.next_id, error) &&
            Resolve(handle, "aiprof_add_metadata", &api.add_metadata, error) &&
            Resolve(handle, "aiprof_collecting", &api.collecting, error) &&
            Resolve(handle, "mstxDomainCreateA", &api.domain_create, error) &&
            Resolve(handle, "mstxDomainMarkA", &api.domain_mark, error) &&
            Resolve(handle, "mstxDomainRangeStartA", &api.domain_range_start, error) &&
            Resolve(handle, "mstxDomainRangeEnd", &api.domain_range_end, error) &&
            Resolve(handle, "mstxMarkA", &api.mark, error) &&
            Resolve(handle, "mstxRangeStartA", &api.range_start, error) &&
            Resolve(handle, "mstxRangeEnd", &api.range_end, error);
  if (!ok) return false;
  g_api = api;
  g_loaded = true;
  return true;
}

bool RuntimeLoaded() {
  return g_loaded;
}

const RuntimeApi& Runtime() {
  return g_api;
}

bool LoadPlugin(const std::string& path, const std::string& attach_symbol, std::string* error) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* reason = dlerror();
    *error = "cannot load the plugin " + path + ": " + (reason ? reason : "unknown reason");
    return false;
  }
  using AttachFn = int (*)();
  auto attach = reinterpret_cast<AttachFn>(dlsym(handle, attach_symbol.c_str()));
  if (attach == nullptr) {
    *error = "the plugin " + path + " has no " + attach_symbol;
    return false;
  }
  if (attach() != 0) {
    *error = "the runtime refused the plugin " + path + " (ABI version mismatch?)";
    return false;
  }
  return true;
}

uint32_t Intern(const std::string& text) {
  if (!g_loaded) return 0;
  return g_api.intern(text.data(), text.size());
}

}  // namespace aiprof::python
