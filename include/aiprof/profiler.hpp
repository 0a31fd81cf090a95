// aiprof::Profiler: torch.profiler-shaped collection windows driven by steps, on top of the
// control API (aiprof.h). Header-only; link libaiprof.so.
//
//   aiprof::Profiler profiler({.output = "out",
//                              .schedule = aiprof::Schedule{.wait = 1, .warmup = 1, .active = 2},
//                              .on_trace_ready = [](const std::string& dir) { ... }});
//   profiler.start();
//   for (...) { train_step(); profiler.step(); }
//   profiler.stop();
//
// The schedule has exactly torch.profiler's semantics (NONE / WARMUP / RECORD /
// RECORD_AND_SAVE and the same transition table); each step is recorded as a
// "ProfilerStep#<n>" range (kStepBegin/kStepEnd). A trace is one PROF_* directory, handed
// to on_trace_ready when a RECORD_AND_SAVE step ends.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aiprof/aiprof.h"

namespace aiprof {

enum class ProfilerAction { kNone = 0, kWarmup = 1, kRecord = 2, kRecordAndSave = 3 };

struct Schedule {
  int64_t skip_first = 0;
  int64_t wait = 0;
  int64_t warmup = 0;
  int64_t active = 1;
  int64_t repeat = 0;  // 0: cycle forever
  int64_t skip_first_wait = 0;

  bool valid() const {
    return wait >= 0 && warmup >= 0 && active > 0 && repeat >= 0 && skip_first >= 0;
  }

  // torch.profiler.schedule's schedule_fn.
  ProfilerAction operator()(int64_t step) const {
    if (step < skip_first) return ProfilerAction::kNone;
    step -= skip_first;
    if (skip_first_wait != 0) step += wait;
    int64_t num_steps = wait + warmup + active;
    if (repeat > 0 &&
        static_cast<double>(step) / static_cast<double>(num_steps) >= static_cast<double>(repeat)) {
      return ProfilerAction::kNone;
    }
    int64_t mod = step % num_steps;
    if (mod < wait) return ProfilerAction::kNone;
    if (mod < wait + warmup) return ProfilerAction::kWarmup;
    return mod < num_steps - 1 ? ProfilerAction::kRecord : ProfilerAction::kRecordAndSave;
  }
};

// What a schedule transition does (torch.profiler.profile's action map).
enum class TraceStep { kWarn, kPrepare, kStart, kStop, kTraceReady };

// Transition from `previous` to `current`; no `current` is the exit transition of stop().
inline std::vector<TraceStep> TransitionSteps(ProfilerAction previous,
                                              std::optional<ProfilerAction> current) {
  using A = ProfilerAction;
  using S = TraceStep;
  if (!current) {
    switch (previous) {
      case A::kWarmup:
        return {S::kStart, S::kStop};
      case A::kRecord:
      case A::kRecordAndSave:
        return {S::kStop, S::kTraceReady};
      default:
        return {};
    }
  }
  A next = *current;
  switch (previous) {
    case A::kNone:
      if (next == A::kWarmup) return {S::kPrepare};
      if (next == A::kRecord || next == A::kRecordAndSave) return {S::kPrepare, S::kStart};
      return {};
    case A::kWarmup:
      if (next == A::kNone) return {S::kWarn, S::kStart, S::kStop};
      if (next == A::kRecord || next == A::kRecordAndSave) return {S::kStart};
      return {};
    case A::kRecord:
      if (next == A::kNone || next == A::kWarmup) return {S::kWarn, S::kStop};
      return {};
    case A::kRecordAndSave:
      if (next == A::kNone) return {S::kStop, S::kTraceReady};
      if (next == A::kWarmup) return {S::kStop, S::kTraceReady, S::kPrepare};
      return {S::kStop, S::kTraceReady, S::kPrepare, S::kStart};
  }
  return {};
}

struct ProfilerOptions {
  std::string output = ".";
  std::optional<Schedule> schedule;  // none: record from start() to stop(), no step ranges
  std::function<void(const std::string& prof_dir)> on_trace_ready;
  // Extra AIPROF_OPTIONS keys, value as JSON text: {"buffer_mb", "128"}.
  std::vector<std::pair<std::string, std::string>> options;
  uint64_t data_types = AIPROF_TYPE_DEFAULT;
};

class Profiler {
 public:
  explicit Profiler(ProfilerOptions options) : options_(std::move(options)) {}
  ~Profiler() {
    if (started_) stop();
    if (config_ != nullptr) aiprofDestroyConfig(config_);
  }
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Returns false (and aiprofLastError() says why) if the runtime refused.
  bool start() {
    if (options_.schedule && !options_.schedule->valid()) return false;
    if (aiprofInit(options_.output.c_str()) != AIPROF_SUCCESS) return false;
    config_ = aiprofCreateConfig(nullptr, 0, options_.data_types);
    if (config_ == nullptr) return false;
    for (const auto& [key, value] : options_.options) {
      if (aiprofConfigSetOption(config_, key.c_str(), value.c_str()) != AIPROF_SUCCESS) {
        return false;
      }
    }
    started_ = true;
    step_num_ = 0;
    action_ = Action(step_num_);
    Apply(TransitionSteps(ProfilerAction::kNone, action_));
    BeginStep();
    return ok_;
  }

  void step() {
    if (!started_) return;
    EndStep();
    ProfilerAction previous = action_;
    ++step_num_;
    action_ = Action(step_num_);
    Apply(TransitionSteps(previous, action_));
    BeginStep();
  }

  void stop() {
    if (!started_) return;
    EndStep();
    Apply(TransitionSteps(action_, std::nullopt));
    started_ = false;
  }

  int64_t step_num() const { return step_num_; }
  ProfilerAction current_action() const { return action_; }
  // The PROF_* directories handed to on_trace_ready so far.
  const std::vector<std::string>& traces() const { return traces_; }

 private:
  ProfilerAction Action(int64_t step) const {
    return options_.schedule ? (*options_.schedule)(step) : ProfilerAction::kRecord;
  }

  void BeginStep() {
    if (options_.schedule) aiprofStepBegin(static_cast<uint64_t>(step_num_));
  }
  void EndStep() {
    if (options_.schedule) aiprofStepEnd(static_cast<uint64_t>(step_num_));
  }

  void Apply(const std::vector<TraceStep>& steps) {
    for (TraceStep step : steps) {
      switch (step) {
        case TraceStep::kWarn:
          std::fprintf(stderr, "aiprof: incorrect schedule: recording stops at step %lld\n",
                       static_cast<long long>(step_num_));
          break;
        case TraceStep::kPrepare:
          break;  // buffers are preallocated by the runtime
        case TraceStep::kStart:
          ok_ = aiprofStart(config_) == AIPROF_SUCCESS && ok_;
          break;
        case TraceStep::kStop:
          aiprofStop(config_);
          break;
        case TraceStep::kTraceReady: {
          std::string dir = aiprofCurrentDir();
          traces_.push_back(dir);
          if (options_.on_trace_ready) options_.on_trace_ready(dir);
          break;
        }
      }
    }
  }

  ProfilerOptions options_;
  aiprofConfig* config_ = nullptr;
  bool started_ = false;
  bool ok_ = true;
  int64_t step_num_ = 0;
  ProfilerAction action_ = ProfilerAction::kNone;
  std::vector<std::string> traces_;
};

}  // namespace aiprof
