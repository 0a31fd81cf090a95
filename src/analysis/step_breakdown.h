// Step breakdown per step and per scope (device, or host process on CPU-only runs):
// msprof-analyze's step_trace_time.csv. Each step's window on a scope runs from the
// step's begin to its end, stretched to the end of the last task of the scope that started
// inside the step (device work launched by the step finishes after it on the host), but
// never past the next step's begin. Within the window, from the overlap lanes:
//   Computing                     |Computing ∩ W|
//   Communication(Not Overlapped) |(Communication − Computing) ∩ W|
//   Overlapped                    Communication − Communication(Not Overlapped)
//   Communication                 |Communication ∩ W|
//   Free                          |W| − |(Computing ∪ Communication) ∩ W|: W less its tasks
//   Bubble                        Σ receive-operation time in W (pipeline-parallel wait)
//   Stage                         Computing + Communication(Not Overlapped) + Free − Bubble
//   Comm(Not Overlapped and Exclude Receive)  max(Communication(Not Overlapped) − Bubble, 0)
//   Preparing                     first task start in W − step begin (a part of Free)
//   Input wait                    |Free of W ∩ the step's input-wait ranges| (data_preparation.h):
//                                 the part of Free the step spent waiting for its input
// Computing + Communication(Not Overlapped) + Free is the step's time on the scope (msprof's
// e2e); Preparing and Input wait are parts of Free, not further parts of the step.
// Without steps (StepSource::kNone) each scope gets one row spanning all its tasks.
#pragma once

#include <array>
#include <cstdint>
#include <iterator>
#include <vector>

#include "analysis/data_preparation.h"
#include "analysis/overlap.h"
#include "analysis/result_columns.h"
#include "analysis/step_trace.h"
#include "analysis/steps.h"
#include "model/model.h"

namespace aiprof::analysis {

// The step_trace_time parts of one step and the columns derived from them; the per-rank
// summaries of aiprof cluster (cluster/rank_summary.h) carry the same parts.
struct StepParts {
  int64_t computing_ns = 0;
  int64_t communication_ns = 0;
  int64_t communication_not_overlapped_ns = 0;
  int64_t free_ns = 0;
  int64_t bubble_ns = 0;
  int64_t preparing_ns = 0;
  int64_t input_wait_ns = 0;

  int64_t overlapped_ns() const { return communication_ns - communication_not_overlapped_ns; }
  // Free time not spent waiting for input: host work between tasks, launch gaps.
  int64_t idle_ns() const { return free_ns - input_wait_ns; }
  int64_t stage_ns() const {
    return computing_ns + communication_not_overlapped_ns + free_ns - bubble_ns;
  }
  int64_t communication_not_overlapped_exclude_receive_ns() const {
    return communication_not_overlapped_ns > bubble_ns ? communication_not_overlapped_ns - bubble_ns
                                                       : 0;
  }
};

// The step_trace_time columns, in msprof's order, and aiprof's parts after them: every
// writer of a step's parts (step_trace_time.csv, the StepTraceTime table, the UI's step
// breakdown, cluster_step_trace_time and ClusterStepTraceTime) reads this list.
inline constexpr Column<StepParts> kStepTraceTimeColumns[] = {
    {"Computing", "computing", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.computing_ns; }},
    {"Communication(Not Overlapped)", "communication_not_overlapped", "", ColumnUnit::kNanoseconds,
     kEveryWriter, [](const StepParts& p) { return p.communication_not_overlapped_ns; }},
    {"Overlapped", "overlapped", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.overlapped_ns(); }},
    {"Communication", "communication", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.communication_ns; }},
    {"Free", "free", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.free_ns; }},
    {"Stage", "stage", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.stage_ns(); }},
    {"Bubble", "bubble", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.bubble_ns; }},
    {"Communication(Not Overlapped and Exclude Receive)",
     "communication_not_overlapped_and_exclude_receive", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.communication_not_overlapped_exclude_receive_ns(); }},
    {"Preparing", "preparing", "", ColumnUnit::kNanoseconds, kEveryWriter,
     [](const StepParts& p) { return p.preparing_ns; }},
    // aiprof's parts of Free, not in msprof's files.
    {"Input Wait", "input_wait", "inputWait", ColumnUnit::kNanoseconds, kDatabase | kUi,
     [](const StepParts& p) { return p.input_wait_ns; }},
    {"Idle", "idle", "", ColumnUnit::kNanoseconds, kUi,
     [](const StepParts& p) { return p.idle_ns(); }},
};
inline constexpr size_t kStepTraceTimeColumnCount = std::size(kStepTraceTimeColumns);

// A step's column values in kStepTraceTimeColumns' order: what the cluster's rows hold (a
// stage row holds the maximum of each column over the stage's ranks, as msprof-analyze's).
using StepTraceTimeValues = std::array<int64_t, kStepTraceTimeColumnCount>;
inline StepTraceTimeValues StepTraceTimeValuesOf(const StepParts& parts) {
  StepTraceTimeValues values;
  for (size_t i = 0; i < kStepTraceTimeColumnCount; ++i)
    values[i] = kStepTraceTimeColumns[i].value(parts);
  return values;
}

struct StepBreakdownRow : StepParts {
  uint32_t step_id = model::kNoRow;  // model::StepTable row; kNoRow: the run has no steps
  uint64_t step = 0;                 // the user's number
  uint32_t loop = 0;                 // loop ordinal (model/steps.h)
  uint32_t scope = 0;                // OverlapResult::scopes index
  int32_t device_id = -1;
  int32_t rank = -1;
  int64_t begin_ns = 0;     // step begin (host)
  int64_t host_end_ns = 0;  // step end (host)
  int64_t end_ns = 0;       // window end on the scope
  bool has_tasks = false;   // false: no task in the window, Preparing is 0
};

struct StepBreakdownResult {
  StepSource step_source = StepSource::kNone;
  std::vector<StepBreakdownRow> rows;  // by scope, then step begin
  // The MindSpore/msprof split per step (FP start, BP end, iteration end, data-aug bound)
  // on the thread that recorded the step.
  std::vector<StepTraceRow> trace;
};

StepBreakdownResult ComputeStepBreakdown(const model::Model& model, const OverlapResult& overlap,
                                         const StepList& steps,
                                         const DataPreparationResult& data_preparation);

}  // namespace aiprof::analysis
