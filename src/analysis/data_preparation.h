// Data preparation: how long each step waits for its input, and whether the input queue ran
// dry (MindSpore Insight's data-preparation view, TensorBoard's DataLoader role).
//
// Input ranges are the ones analysis/input_wait.h names (PyTorch's DataLoader operators
// "enumerate(DataLoader)#...", MindSpore's GetNext, mstx/NVTX ranges such as data_wait,
// load_batch, data_load), the same ranges the overlap analysis leaves out of Computing.
// On the thread that runs the steps such a range is the step waiting for input ("wait").
// On any other thread it is a producer preparing a batch ("loader"), e.g. the loader
// threads of examples/train.
//
// Queue view: MindSpore marks a step whose data queue was empty when it asked for a batch.
// Without a queue-size record the same fact is read from the ranges: the step found the
// queue empty when a loader range ended while the step was waiting (the batch it got was
// still being made). The view exists only when loader ranges do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/result_columns.h"
#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

struct DataPreparationStep {
  uint32_t step_id = 0;  // model::StepTable row
  uint64_t step = 0;     // the user's number
  uint32_t loop = 0;     // loop ordinal (model/steps.h)
  uint32_t thread = 0;   // ThreadTable row running the step
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t wait_ns = 0;         // union of the step's wait ranges, clipped to the step
  uint32_t waits = 0;          // disjoint wait periods inside the step
  int64_t loader_busy_ns = 0;  // union of loader ranges (any thread) inside the step
  bool queue_empty = false;    // a loader range ended while the step waited
  bool queue_known = false;    // the result has the queue view (loader ranges exist)
  uint32_t first_wait = 0;     // DataPreparationResult::wait_intervals[first_wait, +waits)
  // The wait range (SliceTable row) covering most of the step's wait, the one a user opens
  // on the timeline; model::kNoRow when the step did not wait.
  uint32_t longest_wait_slice = model::kNoRow;

  int64_t duration_ns() const { return end_ns - begin_ns; }
  double wait_share() const { return Share(wait_ns, duration_ns()); }
};

// The columns of data_preparation.csv, DATA_PREPARATION and /api/dataprep's steps after the
// step and its thread (the writers' keys: export/analysis/resource_analysis_files.cc,
// export/sqlite/resource_analysis_tables.cc, server/analysis_api.cc).
inline constexpr Column<DataPreparationStep> kDataPreparationColumns[] = {
    {"Step Time(us)", "duration", "", ColumnUnit::kNanosecondsInteger, kFiles | kUi,
     [](const DataPreparationStep& s) { return s.duration_ns(); }},
    {"", "begin", "startNs", ColumnUnit::kTimestamp, kDatabase,
     [](const DataPreparationStep& s) { return s.begin_ns; }},
    {"", "end", "endNs", ColumnUnit::kTimestamp, kDatabase,
     [](const DataPreparationStep& s) { return s.end_ns; }},
    {"Data Wait(us)", "wait", "dataWaitNs", ColumnUnit::kNanosecondsInteger, kEveryWriter,
     [](const DataPreparationStep& s) { return s.wait_ns; }},
    RealColumn<DataPreparationStep>("Data Wait Ratio", "wait_share", "", ColumnUnit::kRatio, kFiles,
                                    [](const DataPreparationStep& s) { return s.wait_share(); }),
    {"Waits", "waits", "", ColumnUnit::kCount, kEveryWriter,
     [](const DataPreparationStep& s) { return static_cast<int64_t>(s.waits); }},
    {"Loader Busy(us)", "loader_busy", "loaderBusyNs", ColumnUnit::kNanosecondsInteger,
     kEveryWriter, [](const DataPreparationStep& s) { return s.loader_busy_ns; }},
    {"Queue Empty", "queue_empty", "queueEmpty", ColumnUnit::kFlag, kEveryWriter,
     [](const DataPreparationStep& s) -> int64_t { return s.queue_known ? s.queue_empty : -1; },
     /*null_when_negative=*/true},
    // The step's longest wait range (SliceTable row), the one the UI opens on the timeline.
    {"", "wait_slice", "", ColumnUnit::kCount, kUi,
     [](const DataPreparationStep& s) -> int64_t {
       return s.longest_wait_slice == model::kNoRow ? -1 : int64_t{s.longest_wait_slice};
     },
     /*null_when_negative=*/true},
};

struct DataPreparationResult {
  // Which inputs were found: "DataLoader operators", "wait ranges", "loader ranges".
  std::vector<std::string> inputs;
  bool has_queue_view = false;             // loader ranges exist, so queue_empty is meaningful
  std::vector<DataPreparationStep> steps;  // by step id
  // Each step's wait periods (merged, clipped to the step, in time order), consecutive per
  // step: what the step breakdown intersects with its Free time.
  std::vector<Interval> wait_intervals;
  int64_t total_wait_ns = 0;
  int64_t total_step_ns = 0;
  uint32_t empty_queue_steps = 0;

  // The `steps` row of a step id; model::kNoRow when the step is not in the result.
  uint32_t RowOfStep(uint32_t step_id) const;
  // The wait of `steps[row]` inside [begin, end).
  int64_t WaitWithin(uint32_t row, int64_t begin, int64_t end) const;

  double wait_share() const { return Share(total_wait_ns, total_step_ns); }
};

// The columns of data_preparation_summary.csv and /api/dataprep's totals after the inputs.
inline constexpr Column<DataPreparationResult> kDataPreparationSummaryColumns[] = {
    {"Steps", "step_count", "", ColumnUnit::kCount, kFiles,
     [](const DataPreparationResult& r) { return static_cast<int64_t>(r.steps.size()); }},
    {"Step Time(us)", "total_step", "", ColumnUnit::kNanosecondsInteger, kFiles | kUi,
     [](const DataPreparationResult& r) { return r.total_step_ns; }},
    {"Data Wait(us)", "total_wait", "", ColumnUnit::kNanosecondsInteger, kFiles | kUi,
     [](const DataPreparationResult& r) { return r.total_wait_ns; }},
    RealColumn<DataPreparationResult>(
        "Data Wait Ratio", "wait_share", "", ColumnUnit::kRatio, kFiles,
        [](const DataPreparationResult& r) { return r.wait_share(); }),
    {"Empty Queue Steps", "empty_queue_steps", "", ColumnUnit::kCount, kFiles | kUi,
     [](const DataPreparationResult& r) -> int64_t {
       return r.has_queue_view ? int64_t{r.empty_queue_steps} : -1;
     },
     /*null_when_negative=*/true},
};

// `steps`: the steps found once for every analysis (analysis/steps.h).
DataPreparationResult ComputeDataPreparation(const model::Model& model, const StepList& steps);

}  // namespace aiprof::analysis
