#include "runtime/dynamic/session_window_controller.h"

#include <nlohmann/json.hpp>

#include "aiprof/aiprof.h"
#include "aiprof/plugin.h"
#include "runtime/options.h"
#include "runtime/session.h"

namespace aiprof::dynamic {
namespace {

// Options a window cannot change: why, or "" for the others.
std::string FixedForTheJob(const std::string& key) {
  if (key == "mode" || key == "launcher_pid" || key == "launch_realtime_ns" || key == "app") {
    return "it is fixed when the job starts (the job runs in dynamic mode)";
  }
  if (key == "delay_s" || key == "duration_s") {
    return "a window runs from start to stop; send stop when it should end";
  }
  if (key == "seq") return "each window gets the next free PROF_* number";
  return "";
}

}  // namespace

void SessionWindowController::SetBaseOptions(const std::string& options_json) {
  std::lock_guard lock(mutex_);
  base_options_ = options_json;
}

ControlReply SessionWindowController::StartWindow(const std::string& options_json) {
  std::lock_guard lock(mutex_);
  if (runtime::WindowOpen()) return {false, "already collecting into " + runtime::CurrentDir()};
  nlohmann::json overrides = nlohmann::json::parse(options_json, nullptr, false);
  if (overrides.is_discarded() || !overrides.is_object())
    return {false, "options are not a JSON object"};
  runtime::Options options;
  std::string error;
  if (!runtime::ParseOptions(base_options_, &options, &error))
    return {false, "job options: " + error};
  for (const auto& [key, value] : overrides.items()) {
    if (std::string why = FixedForTheJob(key); !why.empty()) {
      return {false, "option '" + key + "' cannot be set by start: " + why};
    }
    if (!runtime::SetOption(&options, key, value.dump(), &error)) return {false, error};
  }
  // Each window is a new PROF_* directory; a delay or duration of the launch does not apply.
  for (const char* key : {"seq", "delay_s", "duration_s"}) {
    runtime::SetOption(&options, key, key == std::string("seq") ? "-1" : "0", &error);
  }
  if (!runtime::StartWindow(options, &error)) return {false, "start failed: " + error};
  window_is_ours_ = true;
  ++windows_;
  last_dir_ = runtime::CurrentDir();
  return {true, "collecting into " + last_dir_};
}

ControlReply SessionWindowController::StopWindow() {
  std::lock_guard lock(mutex_);
  if (!window_is_ours_ || !runtime::WindowOpen()) {
    window_is_ours_ = false;
    return {false, "not collecting; use start first"};
  }
  runtime::StopWindow("dynamic_stop", runtime::kExitStatusUnknown);
  window_is_ours_ = false;
  return {true, "stopped; wrote " + last_dir_};
}

bool SessionWindowController::IsCollecting() {
  return runtime::WindowOpen();
}

std::string SessionWindowController::Status() {
  std::lock_guard lock(mutex_);
  bool collecting = runtime::WindowOpen();
  std::string dir = collecting ? runtime::CurrentDir() : last_dir_;
  return std::string("state=") + (collecting ? "collecting" : "idle") +
         " windows=" + std::to_string(windows_) + " dir=" + (dir.empty() ? "-" : dir);
}

void SessionWindowController::MarkStep(uint64_t step, bool begin) {
  if (begin) {
    aiprofStepBegin(step);
  } else {
    aiprofStepEnd(step);
  }
}

void SessionWindowController::AddMetadata(const std::string& key, const std::string& json_value) {
  aiprof_add_metadata(key.c_str(), json_value.c_str());
}

SessionWindowController& ProcessWindowController() {
  // Never destroyed: it is used from atexit handlers after static destruction began.
  static auto* controller = new SessionWindowController();
  return *controller;
}

}  // namespace aiprof::dynamic
