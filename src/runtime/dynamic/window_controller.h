// What the control channel asks of the runtime: open and close collection windows. The
// runtime implements it on its window API (session_window_controller.cc); keeping it an
// interface lets the socket server be tested without a profiled process.
#pragma once

#include <cstdint>
#include <string>

namespace aiprof::dynamic {

struct ControlReply {
  bool ok = false;
  std::string message;  // one line, no newline
};

class WindowController {
 public:
  virtual ~WindowController() = default;
  // options_json: a JSON object of AIPROF_OPTIONS keys overriding the job's own for this window.
  virtual ControlReply StartWindow(const std::string& options_json) = 0;
  // Flushes and closes the open window's PROF_* directory.
  virtual ControlReply StopWindow() = 0;
  virtual bool IsCollecting() = 0;
  // One line: state, current or last directory, windows so far.
  virtual std::string Status() = 0;
  // Records the boundary of training step `step` (a "ProfilerStep#<step>" range).
  virtual void MarkStep(uint64_t step, bool begin) = 0;
  // Adds a key (value as JSON text) to the metadata of the raw data.
  virtual void AddMetadata(const std::string& key, const std::string& json_value) = 0;
};

}  // namespace aiprof::dynamic
