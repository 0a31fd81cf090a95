#include "runtime/dynamic/dynamic_profiler.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

extern char** environ;

namespace aiprof::dynamic {
namespace {

bool MakeDirectories(const std::string& path) {
  std::string partial;
  size_t at = 0;
  while (at != std::string::npos) {
    at = path.find('/', at + 1);
    partial = path.substr(0, at);
    if (!partial.empty() && mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

// The export child must not inject the runtime into itself or start another dynamic_profile.
std::vector<std::string> EnvironmentForExport() {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.starts_with("LD_PRELOAD=") || text.starts_with("AIPROF_") ||
        text.starts_with("PROF_CONFIG_PATH=")) {
      continue;
    }
    result.emplace_back(text);
  }
  return result;
}

}  // namespace

DynamicProfiler::DynamicProfiler(WindowController& controller) : controller_(controller) {}

DynamicProfiler::~DynamicProfiler() {
  Shutdown();
}

bool DynamicProfiler::Init(const DynamicProfilerSettings& settings, std::string& error) {
  settings_ = settings;
  owner_pid_ = getpid();
  std::string log_dir = settings.config_dir + "/log";
  if (!MakeDirectories(log_dir)) {
    error = "cannot create " + log_dir + ": " + std::strerror(errno);
    return false;
  }
  std::string suffix = settings.host + "_" + std::to_string(getpid()) + "_rank_" +
                       std::to_string(settings.rank) + ".log";
  dp_log_.Open(log_dir + "/dp_" + suffix);
  monitor_log_.Open(log_dir + "/monitor_dp_" + suffix);
  struct stat existing {};
  if (stat(config_path().c_str(), &existing) != 0) {
    std::ofstream out(config_path());
    out << DpConfigTemplate();
    if (!out) {
      error = "cannot write the template " + config_path() + ": " + std::strerror(errno);
      return false;
    }
    dp_log_.Write("INFO",
                  "wrote the template " + config_path() + "; edit it to start a collection");
  }
  if (!watcher_.Start(
          config_path(), [this](const std::string& contents) { OnConfigChanged(contents); },
          settings.force_polling, error)) {
    return false;
  }
  dp_log_.Write("INFO", "dynamic_profile watching " + config_path() + " (" +
                            (watcher_.using_inotify() ? "inotify" : "polling every 2 s") +
                            "), rank " + std::to_string(settings.rank));
  monitor_log_.Write("INFO", "monitoring " + config_path());
  return true;
}

void DynamicProfiler::OnConfigChanged(const std::string& contents) {
  DpConfigParse parsed = ParseDpConfig(contents);
  if (!parsed.ok) {
    dp_log_.Write("ERROR", config_path() + " is invalid, change ignored: " + parsed.error);
    monitor_log_.Write(
        "INFO", "profiler_config.json modified; not applied (invalid: " + parsed.error + ")");
    return;
  }
  for (const std::string& warning : parsed.warnings) dp_log_.Write("WARNING", warning);
  if (!DpConfigSelectsRank(parsed.config, settings_.rank)) {
    dp_log_.Write("INFO", "rank " + std::to_string(settings_.rank) +
                              " is not in rank_list; nothing collected");
    monitor_log_.Write("INFO", "profiler_config.json modified; not applied to this rank");
    return;
  }
  std::lock_guard lock(mutex_);
  pending_ = parsed.config;
  // Armed before step_ is read and before the log says "accepted": every Step() that counts a
  // step after that read sees armed_ and waits for this lock, so the step logged here is the
  // one that opens the window (both sides sequentially consistent, see Step()).
  UpdateArmedLocked();
  uint64_t now = step_.load();
  pending_first_step_ = std::max<uint64_t>(now + 1, parsed.config.start_step);
  dp_log_.Write("INFO", "config accepted at step " + std::to_string(now) + "; collecting " +
                            std::to_string(parsed.config.active) + " step(s) from step " +
                            std::to_string(pending_first_step_) +
                            (active_ ? " after the current collection" : ""));
  monitor_log_.Write("INFO", "profiler_config.json modified; applied");
}

void DynamicProfiler::Step() {
  // Sequentially consistent, against OnConfigChanged() storing armed_ then reading step_:
  // either that read sees this step or this load sees armed_ (no edit slips past a step).
  uint64_t step = step_.fetch_add(1) + 1;
  if (!armed_.load()) return;
  std::lock_guard lock(mutex_);
  if (active_) {
    controller_.MarkStep(step - 1, false);
    if (++steps_collected_ >= active_->active) EndWindowLocked(step - 1);
  }
  if (!active_ && pending_ && step >= pending_first_step_) {
    DpConfig config = *pending_;
    pending_.reset();
    BeginWindowLocked(config, step, "profiler_config.json");
  } else if (active_) {
    controller_.MarkStep(step, true);
  }
  UpdateArmedLocked();
}

bool DynamicProfiler::StartFromFile(const std::string& config_file, std::string& error) {
  std::string contents;
  DpConfigParse parsed;
  if (!ReadWholeFile(config_file, contents)) {
    parsed.error = "cannot read " + config_file;
  } else {
    parsed = ParseDpConfig(contents);
  }
  std::string origin = config_file;
  if (!parsed.ok) {
    dp_log_.Write("ERROR",
                  "start(" + config_file + "): " + parsed.error + "; using " + config_path());
    origin = config_path();
    parsed = ReadWholeFile(config_path(), contents) ? ParseDpConfig(contents) : DpConfigParse{};
    if (!parsed.ok) {
      error = "neither " + config_file + " nor " + config_path() + " is a valid config";
      dp_log_.Write("ERROR", error);
      return false;
    }
  }
  std::lock_guard lock(mutex_);
  if (active_) {
    error = "a collection is already running; start(" + config_file + ") ignored";
    dp_log_.Write("WARNING", error);
    return false;
  }
  if (!DpConfigSelectsRank(parsed.config, settings_.rank)) {
    dp_log_.Write("INFO",
                  "rank " + std::to_string(settings_.rank) + " is not in rank_list of " + origin);
    return true;
  }
  BeginWindowLocked(parsed.config, step_.load(), origin.c_str());
  UpdateArmedLocked();
  return active_.has_value();
}

void DynamicProfiler::BeginWindowLocked(const DpConfig& config, uint64_t step, const char* origin) {
  ControlReply reply = controller_.StartWindow(DpConfigToOptionsJson(config));
  if (!reply.ok) {
    dp_log_.Write("ERROR",
                  "cannot start collection at step " + std::to_string(step) + ": " + reply.message);
    return;
  }
  active_ = config;
  steps_collected_ = 0;
  window_dir_ = reply.message.substr(reply.message.find_last_of(' ') + 1);
  controller_.MarkStep(step, true);
  nlohmann::json metadata = nlohmann::json::parse(config.metadata_json, nullptr, false);
  if (metadata.is_object()) {
    for (const auto& [key, value] : metadata.items())
      controller_.AddMetadata("dp." + key, value.dump());
  }
  dp_log_.Write("INFO", std::string("collection started at step ") + std::to_string(step) +
                            " for " + std::to_string(config.active) + " step(s) from " + origin +
                            "; " + reply.message);
}

void DynamicProfiler::EndWindowLocked(uint64_t last_step) {
  ControlReply reply = controller_.StopWindow();
  dp_log_.Write(reply.ok ? "INFO" : "ERROR",
                "collection ended after step " + std::to_string(last_step) + ": " + reply.message);
  bool analyse = active_->analyse && !active_->is_rank;
  std::string export_type = active_->export_type;
  active_.reset();
  if (reply.ok && analyse) LaunchExport(window_dir_, export_type);
}

void DynamicProfiler::UpdateArmedLocked() {
  armed_.store(pending_.has_value() || active_.has_value());
}

void DynamicProfiler::LaunchExport(const std::string& prof_dir, const std::string& export_type) {
  if (settings_.aiprof_binary.empty() || access(settings_.aiprof_binary.c_str(), X_OK) != 0) {
    dp_log_.Write("WARNING", "analyse: aiprof binary not found (" + settings_.aiprof_binary +
                                 "); export later with: aiprof export --output=" + prof_dir);
    return;
  }
  std::vector<std::string> arguments = {settings_.aiprof_binary, "export", "--output=" + prof_dir,
                                        "--type=" + export_type};
  std::vector<std::string> environment = EnvironmentForExport();
  std::vector<char*> argv, envp;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  for (std::string& entry : environment) envp.push_back(entry.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t child = 0;
  if (int rc = posix_spawn(&child, argv[0], nullptr, nullptr, argv.data(), envp.data()); rc != 0) {
    dp_log_.Write("ERROR", "cannot run " + settings_.aiprof_binary + ": " + std::strerror(rc));
    return;
  }
  dp_log_.Write("INFO", "analyse: running " + settings_.aiprof_binary + " export --output=" +
                            prof_dir + " (pid " + std::to_string(child) + ")");
  // A thread reaps the child so the job never collects a zombie (or our status) by surprise.
  std::thread([this, child, prof_dir] {
    int status = 0;
    if (waitpid(child, &status, 0) == child && WIFEXITED(status)) {
      dp_log_.Write(WEXITSTATUS(status) == 0 ? "INFO" : "ERROR",
                    "export of " + prof_dir + " finished with exit code " +
                        std::to_string(WEXITSTATUS(status)));
    }
  }).detach();
}

void DynamicProfiler::Shutdown() {
  if (getpid() != owner_pid_) return;  // a forked child: collection belongs to the parent
  watcher_.Stop();
  std::lock_guard lock(mutex_);
  if (active_) {
    EndWindowLocked(step_.load());
    dp_log_.Write("WARNING", "the job ended during a collection; it was closed early");
  }
  pending_.reset();
  armed_ = false;
  monitor_log_.Write("INFO", "dynamic_profile finished");
}

}  // namespace aiprof::dynamic
