// dynamic_profile: collection driven by editing profiler_config.json while a training loop
// runs. Init writes the template and watches the file; each valid edit arms one collection
// of `active` steps, started at the next step boundary (or at `start_step`), followed by an
// export when `analyse` is set. Start(file) collects right away from another config file.
// Invalid edits are logged and ignored. Step() is called once per training step and costs
// one atomic increment and one atomic load while nothing is armed.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "runtime/dynamic/config_watcher.h"
#include "runtime/dynamic/dp_config.h"
#include "runtime/dynamic/rotating_log.h"
#include "runtime/dynamic/window_controller.h"

namespace aiprof::dynamic {

struct DynamicProfilerSettings {
  std::string config_dir;      // holds profiler_config.json and log/
  int64_t rank = 0;            // from RANK
  std::string host;            // for log names
  bool force_polling = false;  // AIPROF_DP_POLLING=1: no inotify
  std::string
      aiprof_binary;  // for analyse: "<aiprof_binary> export --output=<PROF dir>"; empty: no export
};

class DynamicProfiler {
 public:
  explicit DynamicProfiler(WindowController& controller);
  ~DynamicProfiler();

  bool Init(const DynamicProfilerSettings& settings, std::string& error);
  void Step();
  // Collects now from `config_file` (or, if unusable, from the watched profiler_config.json).
  bool StartFromFile(const std::string& config_file, std::string& error);
  // Closes an open collection (process exit).
  void Shutdown();

  std::string config_path() const { return settings_.config_dir + "/profiler_config.json"; }
  std::string dp_log_path() const { return dp_log_.path(); }
  std::string monitor_log_path() const { return monitor_log_.path(); }

 private:
  void OnConfigChanged(const std::string& contents);
  void BeginWindowLocked(const DpConfig& config, uint64_t step, const char* origin);
  void EndWindowLocked(uint64_t last_step);
  void UpdateArmedLocked();
  void LaunchExport(const std::string& prof_dir, const std::string& export_type);

  WindowController& controller_;
  DynamicProfilerSettings settings_;
  RotatingLog dp_log_;
  RotatingLog monitor_log_;
  ConfigWatcher watcher_;

  std::atomic<uint64_t> step_{0};
  std::atomic<bool> armed_{false};  // a pending config or an open window: Step() takes the lock
  std::mutex mutex_;
  std::optional<DpConfig> pending_;  // valid edit waiting for its start step
  uint64_t pending_first_step_ = 0;  // the step that opens pending_'s window (as logged)
  std::optional<DpConfig> active_;   // config of the open window
  int64_t steps_collected_ = 0;
  std::string window_dir_;
  pid_t owner_pid_ = 0;
};

}  // namespace aiprof::dynamic
