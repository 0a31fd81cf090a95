#include "runtime/dynamic/session_window_controller.h"

#include <nlohmann/json.hpp>

namespace aiprof::dynamic {

ControlReply SessionWindowController::StartWindow(const std::string& options_json) {
  std::lock_guard lock(mutex_);
  if (aiprofIsCollecting())
    return {false, std::string("already collecting into ") + aiprofCurrentDir()};
  nlohmann::json options = nlohmann::json::parse(options_json, nullptr, false);
  if (options.is_discarded() || !options.is_object())
    return {false, "options are not a JSON object"};
  // A job started only for dynamic collection may not have initialised the runtime yet.
  std::string output = options.contains("output") && options["output"].is_string()
                           ? options["output"].get<std::string>()
                           : "";
  if (!output.empty() && aiprofInit(output.c_str()) != AIPROF_SUCCESS) {
    return {false, "cannot use output directory " + output + ": " + aiprofLastError()};
  }
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  if (config == nullptr)
    return {false, std::string("cannot create a config: ") + aiprofLastError()};
  for (const auto& [key, value] : options.items()) {
    if (aiprofConfigSetOption(config, key.c_str(), value.dump().c_str()) != AIPROF_SUCCESS) {
      std::string error = "option " + key + "=" + value.dump() + ": " + aiprofLastError();
      aiprofDestroyConfig(config);
      return {false, error};
    }
  }
  aiprofError started = aiprofStart(config);
  if (started == AIPROF_ERROR_NOT_INITIALIZED && aiprofInit(".") == AIPROF_SUCCESS)
    started = aiprofStart(config);
  if (started != AIPROF_SUCCESS) {
    std::string error = std::string("start failed: ") + aiprofLastError();
    aiprofDestroyConfig(config);
    return {false, error};
  }
  config_ = config;
  ++windows_;
  last_dir_ = aiprofCurrentDir();
  return {true, "collecting into " + last_dir_};
}

ControlReply SessionWindowController::StopWindow() {
  std::lock_guard lock(mutex_);
  if (config_ == nullptr || !aiprofIsCollecting())
    return {false, "not collecting; use start first"};
  aiprofError result = aiprofStop(config_);
  aiprofDestroyConfig(config_);
  config_ = nullptr;
  if (result != AIPROF_SUCCESS) return {false, std::string("stop failed: ") + aiprofLastError()};
  return {true, "stopped; wrote " + last_dir_};
}

bool SessionWindowController::IsCollecting() {
  return aiprofIsCollecting() != 0;
}

std::string SessionWindowController::Status() {
  std::lock_guard lock(mutex_);
  bool collecting = config_ != nullptr && aiprofIsCollecting();
  return std::string("state=") + (collecting ? "collecting" : "idle") +
         " windows=" + std::to_string(windows_) + " dir=" + (last_dir_.empty() ? "-" : last_dir_);
}

void SessionWindowController::MarkStep(uint64_t step, bool begin) {
  if (begin) {
    aiprofStepBegin(step);
  } else {
    aiprofStepEnd(step);
  }
}

SessionWindowController& ProcessWindowController() {
  // Never destroyed: it may be used from atexit handlers after static destruction began.
  static auto* controller = new SessionWindowController();
  return *controller;
}

}  // namespace aiprof::dynamic
