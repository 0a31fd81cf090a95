// The step model: the training/inference steps (iterations) of a run, found once when the
// model is built (ResolveSteps, called by ParseFiles) and read by every consumer — the
// per-step analyses, `--iteration-id` in every command, the exports, `query`, the Python
// API and the UI. Nothing else looks for steps.
//
// Sources, in order of precedence; each process takes its steps from the first source it
// has (a DataLoader worker without steps has none):
//   1. step records: prof.step() of the Python API, aiprofStepBegin/End of the C API, the
//      dynamic controller's steps (Model::recorded_steps; shown as "ProfilerStep#N");
//   2. "ProfilerStep#N" ranges recorded as plain slices (torch.profiler's schedule through
//      RecordFunction, or an imported trace);
//   3. mstx/NVTX ranges named like a step: "step 3", "Step#3", "iteration_3"
//      (case-insensitive; separators space, '#', '_', ':', '-');
//   4. torch's "Optimizer.step#<Class>.step" ranges, the boundary an unchanged PyTorch
//      script has: step k ends where the k-th Optimizer.step of the thread ends and begins
//      where the one before it ended; step 0 begins at the thread's first DataLoader fetch
//      before it, else at the thread's first top-level slice.
//
// Each step has a run-unique id (its StepTable row), the user's own number, and the loop it
// belongs to. A loop is one thread's run of steps whose numbers keep increasing: two training
// loops in one process that both count from 0 are two loops. Loops are numbered per process
// in the order they begin (`ordinal`), so rank r's loop k is every other rank's loop k.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aiprof::model {

struct Model;

enum class StepSource : uint8_t {
  kNone,
  kStepRecords,
  kProfilerStepRanges,
  kMarkerRanges,
  kOptimizerSteps,
};
// "step records (prof.step / aiprofStepBegin)", "ProfilerStep#N ranges",
// "mstx/NVTX step ranges", "Optimizer.step ranges", "none (whole collection)".
std::string_view StepSourceName(StepSource source);

// Step records as the importers read them: the slice each one became and its number. The
// raw input of source 1; consumers read Model::steps.
struct RecordedStepTable {
  std::vector<uint32_t> slice;  // SliceTable row ("ProfilerStep#N")
  std::vector<uint64_t> step;
  size_t size() const { return slice.size(); }
};

// The steps, one row per step (the row is the step's run-unique id), by process row, then
// loop ordinal, then begin.
struct StepTable {
  std::vector<uint64_t> step;    // the user's number (ProfilerStep#N's N)
  std::vector<uint32_t> loop;    // StepLoopTable row
  std::vector<uint32_t> thread;  // ThreadTable row that ran the step
  // SliceTable row of the step's range; kNoRow for steps bounded by Optimizer.step, which
  // have none.
  std::vector<uint32_t> slice;
  std::vector<int64_t> ts;
  std::vector<int64_t> end;
  size_t size() const { return step.size(); }
  int64_t dur(size_t row) const { return end[row] - ts[row]; }
};

struct StepLoopTable {
  std::vector<uint32_t> process;  // ProcessTable row
  std::vector<uint32_t> thread;   // ThreadTable row
  std::vector<uint32_t> ordinal;  // 0, 1, ... within the process, by first step begin
  std::vector<StepSource> source;
  std::vector<uint32_t> first;  // StepTable row of the loop's first step
  std::vector<uint32_t> count;  // its steps (consecutive StepTable rows)
  size_t size() const { return process.size(); }
};

// Fills model.steps and model.step_loops from model.recorded_steps and the slices.
void ResolveSteps(Model& model);

// Per slice: 1 when it is a step's range (StepTable::slice), which is no operator.
std::vector<uint8_t> StepRangeMask(const Model& model);

// The source the run's steps came from: that of the loops if they agree, else the one of
// highest precedence among them; kNone without steps.
StepSource RunStepSource(const Model& model);

// How a step is named to the user: "3", or "1:3" (loop ordinal 1, step 3) when a process of
// the run has more than one loop — the form `--iteration-id` takes.
std::string StepLabel(const Model& model, uint32_t step_row);
bool HasSeveralLoops(const Model& model);
std::string FormatStepLabel(bool several_loops, uint32_t loop_ordinal, uint64_t step);

// --iteration-id: "N", "N-M", or with a loop "L:N", "L:N-M".
struct StepRange {
  uint64_t first = 0;
  uint64_t last = 0;
  bool has_loop = false;
  uint32_t loop = 0;  // loop ordinal, when has_loop
};

// False and `error` (saying what is expected) on anything but the forms above.
bool ParseStepRange(const std::string& text, StepRange* range, std::string* error);

// The StepTable rows `range` selects, by row. False and `error` when it selects none (the
// error lists the steps there are) or when its numbers are in several loops of one
// process and it names no loop (the error lists the loops).
bool SelectSteps(const Model& model, const StepRange& range, std::vector<uint32_t>* rows,
                 std::string* error);

// Parses "ProfilerStep#12" → 12; false when `name` is no such name.
bool ParseProfilerStepName(std::string_view name, uint64_t* step);
// Parses a marker step name ("step 3", "Step#3", "iteration_3") → 3.
bool ParseMarkerStepName(std::string_view name, uint64_t* step);
// torch's optimizer range: "Optimizer.step#SGD.step" (and "Optimizer.step" alone).
bool IsOptimizerStepName(std::string_view name);

}  // namespace aiprof::model
