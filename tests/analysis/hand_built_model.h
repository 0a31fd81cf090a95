// Builds small models by hand for the analysis tests: processes, threads and slices with
// known intervals, so every analysed number can be checked exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/model.h"
#include "model/process_rows.h"

namespace aiprof::analysis::testing {

class HandBuiltModel {
 public:
  // A process and its first thread; returns the thread row. device_id -1: a host process.
  uint32_t AddProcess(uint32_t pid, int32_t device_id = -1, int32_t rank = -1) {
    model::ProcessRow row;
    row.pid = pid;
    row.host = model_.strings.Intern("host");
    row.name = model_.strings.Intern(device_id < 0 ? "python3" : "GPU");
    row.sort_index = static_cast<int64_t>(model_.processes.size() + 1);
    row.device_id = device_id;
    row.rank = rank;
    return AddThread(model::AppendProcess(model_.processes, row), pid);
  }
  uint32_t AddThread(uint32_t process, uint32_t tid) {
    model_.threads.process.push_back(process);
    model_.threads.tid.push_back(tid);
    model_.threads.name.push_back(model::kNoString);
    model_.threads.sort_index.push_back(0);
    model_.tracks.thread.push_back(static_cast<uint32_t>(model_.threads.size() - 1));
    model_.tracks.lane.push_back(0);
    return static_cast<uint32_t>(model_.threads.size() - 1);
  }
  // Thread rows and track rows are the same here (one track per thread).
  uint32_t AddSlice(uint32_t thread, int64_t ts, int64_t end, std::string_view name,
                    std::string_view category) {
    model::SliceTable& s = model_.slices;
    s.ts.push_back(ts);
    s.end.push_back(end);
    s.track.push_back(thread);
    s.name.push_back(model_.strings.Intern(name));
    s.category.push_back(model_.strings.Intern(category));
    s.args.push_back(0);
    s.depth.push_back(0);
    s.parent.push_back(model::kNoRow);
    s.flags.push_back(0);
    return static_cast<uint32_t>(s.size() - 1);
  }
  // A step record (prof.step / aiprofStepBegin): the slice and the recorded step.
  void AddStep(uint32_t thread, uint64_t step, int64_t ts, int64_t end) {
    uint32_t slice =
        AddSlice(thread, ts, end, "ProfilerStep#" + std::to_string(step), "user_annotation");
    model_.recorded_steps.step.push_back(step);
    model_.recorded_steps.slice.push_back(slice);
  }
  // An mstx start/end range.
  uint32_t AddMarkerRange(uint32_t thread, int64_t ts, int64_t end, std::string_view name) {
    uint32_t slice = AddSlice(thread, ts, end, name, "user_annotation");
    model_.markers.is_instant.push_back(0);
    model_.markers.row.push_back(slice);
    model_.markers.event_type.push_back(model::MarkerEventType::kStartEnd);
    model_.markers.domain.push_back(model::kNoString);
    model_.markers.detail.push_back(model::kNoRow);
    return slice;
  }
  // The model with its steps resolved (model/steps.h), as ParseFiles leaves it.
  const model::Model& model() const {
    model::ResolveSteps(model_);
    return model_;
  }
  // For the rows only some tests need (instants, counters, flows, nesting).
  model::Model& mutable_model() { return model_; }

 private:
  mutable model::Model model_;  // model() resolves the steps of what was added so far
};

}  // namespace aiprof::analysis::testing
