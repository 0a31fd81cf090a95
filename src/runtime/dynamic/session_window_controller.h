// WindowController on the runtime's windows (runtime/session.h): each window is one
// StartWindow..StopWindow pair, so one PROF_* directory, with the job's options (its
// AIPROF_OPTIONS as read at load) overridden by those given to `start`.
#pragma once

#include <mutex>
#include <string>

#include "runtime/dynamic/window_controller.h"

namespace aiprof::dynamic {

class SessionWindowController final : public WindowController {
 public:
  // The options every window starts from. Captured once at load so that the program cannot
  // change them later by editing its own environment (the launcher's values win).
  void SetBaseOptions(const std::string& options_json);

  ControlReply StartWindow(const std::string& options_json) override;
  ControlReply StopWindow() override;
  bool IsCollecting() override;
  std::string Status() override;
  void MarkStep(uint64_t step, bool begin) override;
  void AddMetadata(const std::string& key, const std::string& json_value) override;

 private:
  std::mutex mutex_;  // the socket thread and dynamic_profile may both open windows
  std::string base_options_ = "{}";
  bool window_is_ours_ = false;
  int windows_ = 0;
  std::string last_dir_;
};

// The one controller of the process (the control channel and dynamic_profile share it so
// they never open two windows at once).
SessionWindowController& ProcessWindowController();

}  // namespace aiprof::dynamic
