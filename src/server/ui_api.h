// The UI's JSON API over the one model: what `aiprof ui` answers under /api/. Every answer
// is computed from the model (and the analysis library) when asked; the timeline answers go
// through the level-of-detail index so their size follows the pixels, not the events.
// Times in answers are ns since `origin_ns` (the run's start), to stay exact in a double.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis_set.h"
#include "analysis/run_extent.h"
#include "model/model.h"
#include "model/process_roles.h"
#include "server/timeline_index.h"

namespace aiprof::server {

// A request the API cannot answer: bad parameters (status 400) or unknown rows (404).
struct ApiError : std::runtime_error {
  ApiError(int status_code, const std::string& message)
      : std::runtime_error(message), status(status_code) {}
  int status;
};

// Receives a response piece by piece; returns false when the client went away.
using JsonSink = std::function<bool(std::string_view)>;

struct TimeWindow {
  int64_t t0 = 0;  // relative to origin, ns
  int64_t t1 = 0;
  int64_t pixels = 1000;
};

class UiApi {
 public:
  UiApi(model::Model model, std::vector<std::string> prof_dirs);
  ~UiApi();
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
  void Table(std::string_view name, uint32_t step_id, const JsonSink& out) const;

  // The Query tab (query_api.cc): read-only SQL over the run's tables, the database `aiprof
  // export --type=db` writes (docs/db-schema.md), built once on first use into a private
  // temporary directory and removed with the API. At most `row_limit` rows; a statement that
  // writes, attaches or runs longer than `time_limit_ms` is refused (400).
  std::string Query(const std::string& sql, size_t row_limit, int64_t time_limit_ms) const;
  // The database's tables and their columns, for the tab's list.
  std::string QuerySchema() const;

  // Per ProcessTable row, its role and how it is named (model/process_roles.h).
  const std::vector<model::ProcessRoleInfo>& roles() const { return roles_; }
  const std::string& RoleLabel(uint32_t process) const { return role_labels_[process]; }

  // Analysis results (analysis/analysis_set.h), computed once on first use (analysis_api.cc):
  // what the run had, the step breakdown; memory curves, peaks and top operators; data
  // preparation per step; the Overlap Analysis lanes over a window, merged to pixels.
  const analysis::AnalysisSet& Analyses() const;
  std::string AnalysisSummary() const;
  std::string Memory(int64_t pixels) const;
  std::string DataPreparation() const;
  std::string Overlap(const TimeWindow& window) const;
  // The Communication view (communication_api.cc): every operation's time split, the wait per
  // rank × step, the p2p matrix, and what is missing (no operations, one rank).
  std::string Communication() const;
  // The CPU view (cpu_profile_api.cc): the on-CPU (samples) or off-CPU (µs blocked) flame
  // graph as a flat pruned tree, or what is missing, of the threads `filter` selects. The
  // samples are symbolised once, on first use; the graphs of every thread are kept, those of
  // a selection built per request. Rows that are not in the model are refused (400).
  struct CpuThreadFilter {
    std::vector<uint32_t> threads;    // ThreadTable rows
    std::vector<uint32_t> processes;  // ProcessTable rows: all their threads
    bool empty() const { return threads.empty() && processes.empty(); }
  };
  std::string CpuFlameGraph(bool off_cpu, const CpuThreadFilter& filter = {}) const;
  // The threads that have on-CPU samples or blocking stacks, with their weight in each
  // graph, most on-CPU samples first. Computed once.
  const std::string& CpuThreads() const;

  // The Critical path view (critical_path_api.cc): per step the path's attribution, critical
  // rank and thread and the standard projections; one step's path piece by piece (its index
  // in that list; 400 when there is none); the path as a timeline lane over a window, pieces
  // merged to pixels; and a what-if combination re-solved on every step's graph.
  struct WhatIfQuery {
    bool data_loading_free = false;
    bool communication_overlapped = false;
    bool rank_at_median = false;
    std::string operator_name;  // with operator_speedup > 0: that operator or kernel faster
    double operator_speedup = 0;
    std::array<double, analysis::kPathCategoryCount> category_speedup{};  // share removed
  };
  // The run's critical path, computed once on first use: not part of Analyses(), which is
  // the AnalysisSet `aiprof export` computes by default (AnalysisOptions::critical_path).
  const analysis::CriticalPathResult& PathResult() const;
  std::string CriticalPath() const;
  std::string CriticalPathSegments(size_t step_index) const;
  std::string CriticalPathLane(const TimeWindow& window) const;
  std::string WhatIf(const WhatIfQuery& query) const;

  // The advice rules (analysis/advice) over this run's AnalysisSet: advice.json's text, the
  // same as `aiprof export` writes (advice_api.cc). Computed once.
  const std::string& Advice() const;

  // `aiprof ui NEW --compare BASE`: the base run's model, compared with this one by
  // analysis::CompareRuns (compare_api.cc). Call before serving.
  void SetComparisonBase(model::Model base, std::vector<std::string> base_dirs);
  // The comparison (base → this run, top regressions first), or what is missing. Computed
  // once; the base model is released afterwards.
  const std::string& Comparison() const;

 private:
  std::string BuildRun() const;
  std::string BuildTracks() const;
  // ",tid,thread,pid,process,role" of a thread, for the details answers.
  void AppendPlace(uint32_t thread, std::string& out) const;
  // 404 for a track row the model does not have.
  void CheckTracks(const std::vector<uint32_t>& tracks) const;
  // The query database's path, written on first use (query_api.cc).
  const std::string& QueryDatabase() const;

  model::Model model_;
  std::vector<std::string> prof_dirs_;
  TimelineIndex index_;
  analysis::RunExtent extent_;
  int64_t origin_ns_ = 0;
  int64_t end_ns_ = 0;
  std::vector<model::ProcessRoleInfo> roles_;
  std::vector<std::string> role_labels_;
  mutable std::once_flag analyses_once_, advice_once_, comparison_once_, cpu_profile_once_,
      cpu_threads_once_, critical_path_once_, query_once_;
  mutable analysis::CriticalPathResult critical_path_;
  mutable std::string query_dir_, query_db_, query_error_;
  mutable std::unique_ptr<model::Model> base_model_;
  std::vector<std::string> base_dirs_;
  mutable std::string advice_json_, comparison_json_;
  mutable analysis::CpuProfile cpu_profile_;  // the symbolised samples, for selections
  mutable std::string cpu_flame_json_[2];     // on-CPU, off-CPU, every thread
  mutable std::string cpu_threads_json_;
  mutable analysis::AnalysisSet analyses_;
  std::string run_json_, tracks_json_;
};

}  // namespace aiprof::server
