// The exit order of a CUDA job under aiprof, without a GPU: libaiprof.so is loaded first and
// opens the window from AIPROF_OPTIONS (launch mode), as when preloaded; then, as the CUDA
// runtime does, the program registers the handler that tears CUPTI down at exit
// (cupti_exit_double's) and initialises CUDA, whose driver calls the injected plugin's
// InitializeInjection. Then main returns. Arguments: the plugin, the CUPTI double (also
// AIPROF_CUPTI_PATH).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <libaiprof_cuda.so> <cupti double>\n", argv[0]);
    return 2;
  }
  void* cupti = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
  auto tear_down =
      cupti ? reinterpret_cast<void (*)()>(dlsym(cupti, "cupti_exit_double_tear_down")) : nullptr;
  if (tear_down == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[2], dlerror());
    return 2;
  }
  std::atexit(tear_down);  // the CUDA runtime's exit handler, registered before cuInit
  // cuInit: the driver loads the injection library (its constructor attaches) and calls
  // InitializeInjection.
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  auto initialize =
      plugin ? reinterpret_cast<int (*)()>(dlsym(plugin, "InitializeInjection")) : nullptr;
  if (initialize == nullptr || initialize() != 1) {
    std::fprintf(stderr, "the CUDA plugin did not attach: %s\n", plugin ? "" : dlerror());
    return 2;
  }
  return 0;  // exit: the plugin's handler, then CUDA's, then the runtime's
}
