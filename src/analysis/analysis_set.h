// All analyses of one profile, computed once from the model by RunAnalyses and read by
// every consumer: the export job (analysis files, the timeline's Overlap Analysis lanes and
// memory counters, the database's analysis tables, advice.json), `aiprof analyze`, `aiprof
// advise` (analysis/advice), `aiprof compare`, the cluster's per-rank summaries, the UI
// server and the Python API. Each analysis has its own file and result type; this
// aggregate holds one of each plus what the run had (AnalysisInputs), so a report can say
// plainly what a figure was computed from.
//
// Adding an analysis (as data_preparation.h was added):
//   1. src/analysis/<name>.h/.cc: a result type and a `Compute<Name>(const model::Model&,
//      ...)` that takes the results it builds on as arguments (steps, the communication
//      operations, overlap, activities: see RunAnalyses) instead of finding them again;
//   2. a field for the result below;
//   3. one line in RunAnalyses (analysis_set.cc), after the analyses it reads;
//   4. its writers (src/export/analysis/analysis_files.cc, the sqlite analysis tables) and
//      its lines in the text report (src/export/analysis/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/communication_analysis.h"
#include "analysis/cpu_profile/cpu_profile.h"
#include "analysis/critical_path/critical_path.h"
#include "analysis/data_preparation.h"
#include "analysis/device_activity.h"
#include "analysis/idle_time.h"
#include "analysis/kernel_breakdown.h"
#include "analysis/memory.h"
#include "analysis/overlap.h"
#include "analysis/result_columns.h"
#include "analysis/step_breakdown.h"
#include "analysis/steps.h"
#include "model/communication.h"
#include "model/filter.h"
#include "model/model.h"

namespace aiprof::analysis {

struct AnalysisOptions {
  // --iteration-id: analyse only the steps it selects (model::SelectSteps); none: all.
  std::optional<model::StepRange> iterations;
  // The critical path and its projections (critical_path/critical_path.h): only when asked
  // (`aiprof analyze --critical-path`, `aiprof export --critical-path=on`, `aiprof advise`,
  // the UI's Critical path view): it costs more than every other analysis together, and its
  // per-piece outputs are as large as the timeline (docs/PERFORMANCE.md).
  bool critical_path = false;
};

// What the run had, decided once for every analysis.
struct AnalysisInputs {
  bool device_run = false;                     // CUDA: device tasks exist; else CPU-only
  ComputeInput compute = ComputeInput::kNone;  // of the first scope with tasks
  StepSource step_source = StepSource::kNone;
  uint64_t steps = 0;
  uint64_t step_loops = 0;      // the loops the steps belong to (model/steps.h)
  uint64_t devices = 0;         // device processes with tasks
  uint64_t host_processes = 0;  // host processes
  std::vector<int32_t> ranks;   // distinct known ranks, ascending; empty: single process
  uint64_t communication_ops = 0;
  uint64_t dropped_records = 0;  // overflow drops: analyses may miss this many records

  // One line, e.g. "CUDA run: compute = device kernels/memcpy/memset on 1 device(s);
  // steps from step records (prof.step / aiprofStepBegin) (5); 0 communication ops".
  std::string Describe() const;
};

// The columns of analysis_inputs.csv (one row) and ANALYSIS_INPUTS (a name/value row per
// column: the key and the value as text).
inline constexpr Column<AnalysisInputs> kAnalysisInputsColumns[] = {
    TextColumn<AnalysisInputs>(
        "Run Type", "run_type", "", kFiles | kDatabase,
        [](const AnalysisInputs& in) { return std::string(in.device_run ? "CUDA" : "CPU-only"); }),
    TextColumn<AnalysisInputs>(
        "Compute Input", "compute_input", "", kFiles | kDatabase,
        [](const AnalysisInputs& in) { return std::string(ComputeInputName(in.compute)); }),
    TextColumn<AnalysisInputs>(
        "Step Source", "step_source", "", kFiles | kDatabase,
        [](const AnalysisInputs& in) { return std::string(StepSourceName(in.step_source)); }),
    {"Steps", "steps", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const AnalysisInputs& in) { return static_cast<int64_t>(in.steps); }},
    {"Devices", "devices", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const AnalysisInputs& in) { return static_cast<int64_t>(in.devices); }},
    {"Host Processes", "host_processes", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const AnalysisInputs& in) { return static_cast<int64_t>(in.host_processes); }},
    // The ranks, space-separated; not known (N/A, an empty value) in a single process.
    TextColumn<AnalysisInputs>(
        "Ranks", "ranks", "", kFiles | kDatabase,
        [](const AnalysisInputs& in) {
          std::string ranks;
          for (int32_t rank : in.ranks) ranks += (ranks.empty() ? "" : " ") + std::to_string(rank);
          return ranks;
        },
        /*null_when_empty=*/true),
    {"Communication Ops", "communication_ops", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const AnalysisInputs& in) { return static_cast<int64_t>(in.communication_ops); }},
    {"Dropped Records", "dropped_records", "", ColumnUnit::kCount, kFiles | kDatabase,
     [](const AnalysisInputs& in) { return static_cast<int64_t>(in.dropped_records); }},
    TextColumn<AnalysisInputs>("Description", "description", "", kFiles | kDatabase,
                               [](const AnalysisInputs& in) { return in.Describe(); }),
};

struct AnalysisSet {
  AnalysisOptions options;
  AnalysisInputs inputs;
  StepList steps;
  model::CommunicationOps communication;
  OverlapResult overlap;
  StepBreakdownResult step_breakdown;
  DataPreparationResult data_preparation;
  MemoryAnalysis memory;
  KernelBreakdownResult kernel_breakdown;
  IdleTimeResult idle_time;  // the whole run, as HTA computes it
  // The same within the steps' span (first step's begin to last step's end): what the
  // advice judges, without start-up. Empty (no lanes) when the run has no steps.
  IdleTimeResult idle_time_in_steps;
  // CPU samples symbolised (and DWARF-unwound) once; empty without samples.
  CpuProfile cpu_profile;
  CommunicationAnalysis communication_analysis;  // per-op time split, bandwidth, matrix
  // The critical path of every step across threads, streams, loaders and ranks, with its
  // attribution, slack and what-if projections (critical_path/critical_path.h).
  CriticalPathResult critical_path;
};

AnalysisSet RunAnalyses(const model::Model& model, const AnalysisOptions& options = {});

}  // namespace aiprof::analysis
