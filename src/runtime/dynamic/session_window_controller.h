// WindowController on the runtime's control API (aiprof.h): each window is one
// aiprofStart..aiprofStop pair, so one PROF_* directory, with the job's own options
// (AIPROF_OPTIONS) overridden by those given to `start`.
#pragma once

#include <mutex>
#include <string>

#include "aiprof/aiprof.h"
#include "runtime/dynamic/window_controller.h"

namespace aiprof::dynamic {

class SessionWindowController final : public WindowController {
 public:
  ControlReply StartWindow(const std::string& options_json) override;
  ControlReply StopWindow() override;
  bool IsCollecting() override;
  std::string Status() override;
  void MarkStep(uint64_t step, bool begin) override;

 private:
  std::mutex mutex_;  // the socket thread and dynamic_profile may both open windows
  aiprofConfig* config_ = nullptr;
  int windows_ = 0;
  std::string last_dir_;
};

// The one controller of the process (the control channel and dynamic_profile share it so
// they never open two windows at once).
SessionWindowController& ProcessWindowController();

}  // namespace aiprof::dynamic
