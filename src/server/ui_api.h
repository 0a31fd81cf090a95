// The UI's JSON API over the one model: what `aiprof ui` answers under /api/. UiApi holds
// the model and answers the timeline itself (run, tracks, slices, counters, flows, search,
// tables: through the level-of-detail index, so their size follows the pixels, not the
// events); each view over once-computed results is a class of its own that it holds
// (analysis_api.h, communication_api.h, critical_path_api.h, cpu_profile_api.h, advice_api.h,
// compare_api.h, query_api.h). Times in answers are ns since `origin_ns` (the run's start), to stay
// exact in a double.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/operator_table.h"
#include "analysis/run_extent.h"
#include "model/model.h"
#include "model/process_roles.h"
#include "server/advice_api.h"
#include "server/analysis_api.h"
#include "server/api_types.h"
#include "server/communication_api.h"
#include "server/compare_api.h"
#include "server/cpu_profile_api.h"
#include "server/critical_path_api.h"
#include "server/query_api.h"
#include "server/timeline_index.h"

namespace aiprof::server {

// The model's heap size, column by column (capacity), strings at their text plus a pool
// entry each: the reference of the server's memory target (/api/run counts.model_bytes).
size_t ApproximateModelBytes(const model::Model& m);

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
  // A slice's or an instant's details (detail_api.cc): name, times to the ns, thread,
  // process and its role, arguments; a slice's parent and flows (with the other end's track
  // and depth, so that a click jumps there).
  std::string SliceDetails(uint32_t slice) const;
  std::string InstantDetails(uint32_t instant) const;
  // Per-name count and time of the slices starting in the window on `tracks` (all if empty).
  std::string RangeStatistics(const TimeWindow& window, const std::vector<uint32_t>& tracks) const;
  // Slices whose name contains `text` (case-insensitive; `exact`: is `text`, case and all),
  // the total and the matches [offset, offset + limit) by start time, or (`longest_first`) by
  // duration, longest first.
  struct SearchQuery {
    std::string text;
    size_t offset = 0;
    size_t limit = 200;
    bool exact = false;
    bool longest_first = false;
  };
  void Search(const SearchQuery& query, const JsonSink& out) const;
  // The Operators (framework operators) or Kernels (device tasks) table (table_api.cc):
  // analysis::ComputeOperatorTable's rows, with the process's role; `step_id` (a
  // model::StepTable row) keeps the tasks that start inside that step, model::kNoRow all.
  struct TableRequest {
    analysis::OperatorTableKind kind = analysis::OperatorTableKind::kOperators;
    uint32_t step_id = model::kNoRow;
  };
  // /api/table/<name>?step=<step>'s request, checked once, before the answer streams:
  // ApiError 404 for a table or step the run does not have, 400 for a step below -1 (-1:
  // every step).
  TableRequest CheckTableRequest(std::string_view name, int64_t step) const;
  void Table(const TableRequest& request, const JsonSink& out) const;

  // Per ProcessTable row, its role and how it is named (model/process_roles.h).
  const std::vector<model::ProcessRoleInfo>& roles() const { return roles_; }
  const std::string& RoleLabel(uint32_t process) const { return role_labels_[process]; }

  // The views over the analyses and the other once-computed answers, one class each.
  const AnalysisApi& analysis() const { return analysis_; }
  const CommunicationApi& communication() const { return communication_; }
  const CriticalPathApi& critical_path() const { return critical_path_; }
  const CpuProfileApi& cpu_profile() const { return cpu_profile_; }
  const AdviceApi& advice() const { return advice_; }
  const CompareApi& comparison() const { return comparison_; }
  // `aiprof ui NEW --compare BASE`: the base run's model. Call before serving.
  void SetComparisonBase(model::Model base, std::vector<std::string> base_dirs) {
    comparison_.SetBase(std::move(base), std::move(base_dirs));
  }
  const QueryApi& query() const { return query_; }

 private:
  std::string BuildRun() const;
  std::string BuildTracks() const;
  // ",tid,thread,pid,process,role" of a thread, for the details answers.
  void AppendPlace(uint32_t thread, std::string& out) const;
  // 404 for a track row the model does not have.
  void CheckTracks(const std::vector<uint32_t>& tracks) const;

  model::Model model_;
  std::vector<std::string> prof_dirs_;
  TimelineIndex index_;
  analysis::RunExtent extent_;
  int64_t origin_ns_ = 0;
  int64_t end_ns_ = 0;
  std::vector<model::ProcessRoleInfo> roles_;
  std::vector<std::string> role_labels_;
  std::string run_json_, tracks_json_;
  AnalysisApi analysis_;
  CommunicationApi communication_;
  CriticalPathApi critical_path_;
  CpuProfileApi cpu_profile_;
  AdviceApi advice_;
  CompareApi comparison_;
  QueryApi query_;
};

}  // namespace aiprof::server
