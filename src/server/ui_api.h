// The UI's JSON API over the one model: what `aiprof ui` answers under /api/. UiApi holds
// the model and answers the timeline itself (run, tracks, slices, counters, flows, search,
// tables: through the level-of-detail index, so their size follows the pixels, not the
// events); each view over once-computed results is a class of its own that it holds
// (analysis_api.h, communication_api.h, cpu_profile_api.h, advice_api.h, compare_api.h).
// Times in answers are ns since `origin_ns` (the run's start), to stay exact in a double.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "server/advice_api.h"
#include "server/analysis_api.h"
#include "server/api_types.h"
#include "server/communication_api.h"
#include "server/compare_api.h"
#include "server/cpu_profile_api.h"
#include "server/timeline_index.h"

namespace aiprof::server {

class UiApi {
 public:
  UiApi(model::Model model, std::vector<std::string> prof_dirs);
  UiApi(const UiApi&) = delete;  // the index refers to the model it holds
  UiApi& operator=(const UiApi&) = delete;

  const model::Model& model() const { return model_; }
  const TimelineIndex& index() const { return index_; }
  int64_t origin_ns() const { return origin_ns_; }
  int64_t end_ns() const { return end_ns_; }  // the last event

  // Built with the API (the model does not change).
  const std::string& Run() const { return run_json_; }        // run info, drops, files, steps
  const std::string& Tracks() const { return tracks_json_; }  // processes → threads → tracks
  // Spans of `tracks` over the window (level of detail), with instants.
  void Slices(const TimeWindow& window, const std::vector<uint32_t>& tracks,
              const JsonSink& out) const;
  std::string Counters(const TimeWindow& window, const std::vector<uint32_t>& series) const;
  std::string Flows(const TimeWindow& window) const;
  std::string SliceDetails(uint32_t slice) const;
  // Per-name count and time of the slices starting in the window on `tracks` (all if empty).
  std::string RangeStatistics(const TimeWindow& window, const std::vector<uint32_t>& tracks) const;
  // Slices whose name contains `text` (case-insensitive), by start time.
  void Search(std::string_view text, size_t limit, const JsonSink& out) const;
  // A statistics table with op_statistic's / api_statistic's columns: "operators" (the
  // compute tasks) or "kernels" (device tasks only); `step_id` (a model::StepTable row)
  // keeps the tasks that start inside that step, model::kNoRow keeps all.
  void Table(std::string_view name, uint32_t step_id, const JsonSink& out) const;

  // The views over the analyses and the other once-computed answers, one class each.
  const AnalysisApi& analysis() const { return analysis_; }
  const CommunicationApi& communication() const { return communication_; }
  const CpuProfileApi& cpu_profile() const { return cpu_profile_; }
  const AdviceApi& advice() const { return advice_; }
  const CompareApi& comparison() const { return comparison_; }
  // `aiprof ui NEW --compare BASE`: the base run's model. Call before serving.
  void SetComparisonBase(model::Model base, std::vector<std::string> base_dirs) {
    comparison_.SetBase(std::move(base), std::move(base_dirs));
  }

 private:
  std::string BuildRun() const;
  std::string BuildTracks() const;

  model::Model model_;
  std::vector<std::string> prof_dirs_;
  TimelineIndex index_;
  int64_t origin_ns_ = 0;
  int64_t end_ns_ = 0;
  std::string run_json_, tracks_json_;
  AnalysisApi analysis_;
  CommunicationApi communication_;
  CpuProfileApi cpu_profile_;
  AdviceApi advice_;
  CompareApi comparison_;
};

}  // namespace aiprof::server
