#include "runtime/dynamic/dynamic_entry.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "aiprof/dynamic_profile.h"
#include "runtime/dynamic/control_server.h"
#include "runtime/dynamic/dynamic_profiler.h"
#include "runtime/dynamic/protocol.h"
#include "runtime/dynamic/session_window_controller.h"
#include "runtime/lifecycle.h"

namespace aiprof::dynamic {
namespace {

// Both live until exit and are shut down by an atexit handler, never destroyed: threads
// they started may still run while static destructors do.
ControlServer* g_server = nullptr;
pid_t g_owner_pid = 0;  // the process whose server g_server is (not a fork child)
DynamicProfiler* g_profiler = nullptr;
std::mutex g_mutex;

void ShutdownAtExit() {
  std::lock_guard lock(g_mutex);
  if (g_server != nullptr) g_server->Shutdown();
  if (g_profiler != nullptr) g_profiler->Shutdown();
}

void RegisterExitHandlerOnce() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(ShutdownAtExit); });
}

// The directory of this job's control socket: $XDG_RUNTIME_DIR, else /tmp/aiprof-<uid>
// (created 0700), each used only when private to this user (protocol.h); when neither is (a
// squatter made them), a new /tmp/aiprof-<uid>.XXXXXX, where clients look as well. A place
// passed over is named on stderr.
bool PrepareSocketDirectory(std::string* directory, std::string* error) {
  const uid_t uid = geteuid();
  std::vector<std::string> passed_over;
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  if (runtime_dir != nullptr && runtime_dir[0] != '\0') {
    std::string problem = CheckPrivateDirectory(runtime_dir, uid);
    if (problem.empty()) {
      *directory = runtime_dir;
      return true;
    }
    passed_over.push_back("$XDG_RUNTIME_DIR: " + problem);
  }
  std::string tmp = TmpSocketDirectory(uid);
  mkdir(tmp.c_str(), 0700);
  std::string problem = CheckPrivateDirectory(tmp, uid);
  if (problem.empty()) {
    *directory = tmp;
  } else {
    passed_over.push_back(problem);
    std::string fresh = tmp + ".XXXXXX";
    if (mkdtemp(fresh.data()) == nullptr) {
      *error = problem + ", and no private directory can be made in /tmp: " + std::strerror(errno);
      return false;
    }
    *directory = fresh;
  }
  for (const std::string& reason : passed_over) {
    std::fprintf(stderr,
                 "aiprof: %s (not private: someone else may have made it); the control socket "
                 "is in %s instead\n",
                 reason.c_str(), directory->c_str());
  }
  return true;
}

// bin/aiprof next to the lib/ directory that holds libaiprof.so.
std::string AiprofBinaryPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&aiprofDynamicStep), &info) == 0 || info.dli_fname == nullptr)
    return "";
  std::string library = info.dli_fname;
  size_t slash = library.rfind('/');
  std::string directory = slash == std::string::npos ? "." : library.substr(0, slash);
  return directory + "/../bin/aiprof";
}

const char* ConfigPathFromEnvironment() {
  for (const char* name : {"AIPROF_CONFIG_PATH", "PROF_CONFIG_PATH"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') return value;
  }
  return nullptr;
}

}  // namespace

void StartDynamicCollectionIfRequested() {
  const char* mode_env = std::getenv("AIPROF_MODE");
  const char* options_text = std::getenv("AIPROF_OPTIONS");
  nlohmann::json options = nlohmann::json::parse(
      options_text != nullptr && *options_text != '\0' ? options_text : "{}", nullptr, false);
  bool dynamic_mode = (mode_env != nullptr && std::string(mode_env) == "dynamic") ||
                      (options.is_object() && options.value("mode", "") == "dynamic");
  if (dynamic_mode) {
    runtime::InstallProcessHooks();
    // So that a job stopped by SIGTERM/SIGINT removes its socket file (exit handlers do not
    // run then); the handlers hand over to the program's own when it has one.
    runtime::InstallSignalHandlers();
    ProcessWindowController().SetBaseOptions(options.is_object() ? options.dump() : "{}");
    std::lock_guard lock(g_mutex);
    if (g_server == nullptr) {
      auto* server = new ControlServer(ProcessWindowController());
      std::string directory, error;
      if (PrepareSocketDirectory(&directory, &error) &&
          server->Start(directory + "/" + SocketName(getpid()), error)) {
        g_owner_pid = getpid();
        __atomic_store_n(&g_server, server, __ATOMIC_RELEASE);
        RegisterExitHandlerOnce();
      } else {
        std::fprintf(stderr, "aiprof: dynamic collection unavailable: %s\n", error.c_str());
        delete server;
      }
    }
  }
  if (const char* config_dir = ConfigPathFromEnvironment(); config_dir != nullptr) {
    if (aiprofDynamicInit(config_dir) != AIPROF_SUCCESS) {
      std::fprintf(stderr, "aiprof: dynamic_profile unavailable for %s\n", config_dir);
    }
  }
}

void RemoveControlSocketFromSignal() {
  ControlServer* server = __atomic_load_n(&g_server, __ATOMIC_ACQUIRE);
  if (server != nullptr && getpid() == g_owner_pid) server->RemoveSocketFile();
}

}  // namespace aiprof::dynamic

using aiprof::dynamic::g_mutex;
using aiprof::dynamic::g_profiler;

#define AIPROF_EXPORT extern "C" __attribute__((visibility("default")))

AIPROF_EXPORT aiprofError aiprofDynamicInit(const char* config_dir) {
  if (config_dir == nullptr || config_dir[0] == '\0') return AIPROF_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(g_mutex);
  if (g_profiler != nullptr) return AIPROF_SUCCESS;
  aiprof::dynamic::DynamicProfilerSettings settings;
  settings.config_dir = config_dir;
  while (settings.config_dir.size() > 1 && settings.config_dir.back() == '/')
    settings.config_dir.pop_back();
  const char* rank = std::getenv("RANK");
  settings.rank = rank != nullptr ? std::atoll(rank) : 0;
  char host[256] = "localhost";
  gethostname(host, sizeof(host) - 1);
  settings.host = host;
  const char* polling = std::getenv("AIPROF_DP_POLLING");
  settings.force_polling = polling != nullptr && std::string(polling) == "1";
  settings.aiprof_binary = aiprof::dynamic::AiprofBinaryPath();
  aiprof::runtime::InstallProcessHooks();
  auto* profiler = new aiprof::dynamic::DynamicProfiler(aiprof::dynamic::ProcessWindowController());
  std::string error;
  if (!profiler->Init(settings, error)) {
    std::fprintf(stderr, "aiprof: dynamic_profile: %s\n", error.c_str());
    delete profiler;
    return AIPROF_ERROR_IO;
  }
  __atomic_store_n(&g_profiler, profiler, __ATOMIC_RELEASE);
  aiprof::dynamic::RegisterExitHandlerOnce();
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT void aiprofDynamicStep(void) {
  // g_profiler is set once and never freed, so reading it without the lock is safe after
  // the acquire inside the profiler; a Step racing Init simply finds it null and does nothing.
  aiprof::dynamic::DynamicProfiler* profiler = __atomic_load_n(&g_profiler, __ATOMIC_ACQUIRE);
  if (profiler != nullptr) profiler->Step();
}

AIPROF_EXPORT aiprofError aiprofDynamicStart(const char* config_file) {
  aiprof::dynamic::DynamicProfiler* profiler = __atomic_load_n(&g_profiler, __ATOMIC_ACQUIRE);
  if (profiler == nullptr) return AIPROF_ERROR_NOT_INITIALIZED;
  if (config_file == nullptr) return AIPROF_ERROR_INVALID_ARGUMENT;
  std::string error;
  return profiler->StartFromFile(config_file, error) ? AIPROF_SUCCESS
                                                     : AIPROF_ERROR_INVALID_ARGUMENT;
}
