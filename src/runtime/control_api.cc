// The control API (include/aiprof/aiprof.h).
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "aiprof/aiprof.h"
#include "format/records.h"
#include "runtime/marker_emit.h"
#include "runtime/metadata.h"
#include "runtime/options.h"
#include "runtime/session.h"

#define AIPROF_EXPORT extern "C" __attribute__((visibility("default")))

struct aiprofConfig {
  aiprof::runtime::Options options;
};

namespace aiprof::runtime {
namespace {

thread_local std::string t_last_error;
std::mutex g_control_mutex;
bool g_initialized = false;
std::string g_output_dir = ".";
thread_local std::string t_current_dir;

aiprofError Fail(aiprofError code, std::string message) {
  t_last_error = std::move(message);
  return code;
}

void EmitStep(RecordKind kind, uint64_t step) {
  if (!Collecting()) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitSimple(state, kind, 0, static_cast<uint32_t>(step));
}

}  // namespace
}  // namespace aiprof::runtime

using namespace aiprof::runtime;

AIPROF_EXPORT aiprofError aiprofInit(const char* output_dir) {
  std::lock_guard<std::mutex> lock(g_control_mutex);
  if (output_dir == nullptr || *output_dir == '\0') {
    return Fail(AIPROF_ERROR_INVALID_ARGUMENT, "aiprofInit: output_dir is empty");
  }
  std::string error;
  if (!MakeDirectories(output_dir, &error)) return Fail(AIPROF_ERROR_IO, "aiprofInit: " + error);
  g_output_dir = output_dir;
  g_initialized = true;
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT aiprofConfig* aiprofCreateConfig(const uint32_t* device_ids, uint32_t device_count,
                                               uint64_t data_types) {
  if (device_ids == nullptr && device_count != 0) {
    Fail(AIPROF_ERROR_INVALID_ARGUMENT, "aiprofCreateConfig: device_ids is NULL but count > 0");
    return nullptr;
  }
  auto* config = new aiprofConfig();
  std::string error;
  nlohmann::json devices = nlohmann::json::array();
  for (uint32_t i = 0; i < device_count; ++i) devices.push_back(device_ids[i]);
  nlohmann::json settings = {
      {"mode", "api"},
      {"msproftx", (data_types & AIPROF_TYPE_MSTX) != 0},
      {"task_time", (data_types & AIPROF_TYPE_TASK_TIME) != 0 ? "l1" : "off"},
      // AIPROF_TYPE_RUNTIME_API is both CUDA APIs: the runtime API is the key "ascendcl",
      // the driver API "runtime_api" (msprof's option names, docs/cli.md).
      {"ascendcl", (data_types & AIPROF_TYPE_RUNTIME_API) != 0},
      {"runtime_api", (data_types & AIPROF_TYPE_RUNTIME_API) != 0},
      {"profile_memory", (data_types & AIPROF_TYPE_MEMORY) != 0},
      {"ai_core", (data_types & AIPROF_TYPE_AIC_METRICS) != 0},
      {"hccl", (data_types & AIPROF_TYPE_COMM) != 0},
      {"device_sys", (data_types & AIPROF_TYPE_DEVICE_SYS) != 0},
      {"record_shapes", (data_types & AIPROF_TYPE_SHAPES) != 0},
      {"with_stack", (data_types & AIPROF_TYPE_STACK) != 0},
  };
  if (device_ids != nullptr) settings["devices"] = devices;
  ParseOptions(settings.dump(), &config->options, &error);
  return config;
}

AIPROF_EXPORT aiprofError aiprofConfigSetOption(aiprofConfig* config, const char* key,
                                                const char* json_value) {
  if (config == nullptr || key == nullptr || json_value == nullptr) {
    return Fail(AIPROF_ERROR_INVALID_ARGUMENT, "aiprofConfigSetOption: NULL argument");
  }
  std::string error;
  if (!SetOption(&config->options, key, json_value, &error)) {
    return Fail(AIPROF_ERROR_INVALID_ARGUMENT, error);
  }
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT aiprofError aiprofDestroyConfig(aiprofConfig* config) {
  if (config == nullptr) return Fail(AIPROF_ERROR_INVALID_ARGUMENT, "aiprofDestroyConfig: NULL");
  delete config;
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT aiprofError aiprofStart(const aiprofConfig* config) {
  if (config == nullptr) return Fail(AIPROF_ERROR_INVALID_ARGUMENT, "aiprofStart: NULL config");
  Options options = config->options;
  {
    std::lock_guard<std::mutex> lock(g_control_mutex);
    if (!g_initialized) {
      return Fail(AIPROF_ERROR_NOT_INITIALIZED, "aiprofStart: call aiprofInit first");
    }
    nlohmann::json given = nlohmann::json::parse(options.json, nullptr, false);
    if (!given.is_object() || !given.contains("output")) {
      std::string error;
      SetOption(&options, "output", nlohmann::json(g_output_dir).dump(), &error);
    }
  }
  if (WindowOpen()) {
    return Fail(AIPROF_ERROR_ALREADY_STARTED,
                "aiprofStart: a window is already open in " + CurrentDir());
  }
  std::string error;
  if (!StartWindow(options, &error)) return Fail(AIPROF_ERROR_IO, "aiprofStart: " + error);
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT aiprofError aiprofStop(const aiprofConfig*) {
  if (!WindowOpen()) return Fail(AIPROF_ERROR_NOT_STARTED, "aiprofStop: no window is open");
  StopWindow("stop", kExitStatusUnknown);
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT aiprofError aiprofFinalize(void) {
  ShutdownForExit("finalize", kExitStatusUnknown);
  std::lock_guard<std::mutex> lock(g_control_mutex);
  g_initialized = false;
  return AIPROF_SUCCESS;
}

AIPROF_EXPORT void aiprofStepBegin(uint64_t step) {
  EmitStep(RecordKind::kStepBegin, step);
}
AIPROF_EXPORT void aiprofStepEnd(uint64_t step) {
  EmitStep(RecordKind::kStepEnd, step);
}

AIPROF_EXPORT int aiprofIsCollecting(void) {
  return WindowOpen() ? 1 : 0;
}

AIPROF_EXPORT const char* aiprofCurrentDir(void) {
  t_current_dir = CurrentDir();
  return t_current_dir.c_str();
}

AIPROF_EXPORT const char* aiprofLastError(void) {
  return t_last_error.c_str();
}
