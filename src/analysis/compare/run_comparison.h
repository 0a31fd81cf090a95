// Comparison of two profiles (`aiprof compare <base> <new>`), or of two steps of one: the
// numbers behind its report and CSV files, kept apart from them so that any other reader
// (the web UI) takes the same path. Shaped after HTA's TraceDiff
// (per-name counts and durations of CPU operators and GPU kernels, added/removed names) and
// msprof-analyze compare (Base / Comparison / Diff columns, Diff Ratio = comparison / base):
//   - operators: host slices of category cpu_op (torch operators) or user_annotation
//     (record_function, mstx and NVTX ranges), step ranges excluded (they are the steps);
//   - kernels: device tasks (kernel, gpu_memcpy, gpu_memset);
//   - steps: the step breakdown (analysis/step_breakdown.h) of paired scopes, step by step
//     and as the mean over each side's steps.
// Names are matched by type and name, with --group-by=shape also by input shapes (torch's
// Input Dims). Rows are ranked by the change of total time, largest regression first.
// Each side is one model with its AnalysisSet; with --iteration-id the set's selected steps
// bound the operators and kernels counted (those starting inside the steps' window).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::analysis {

enum class CompareGroupBy : uint8_t { kName, kNameAndShape };

struct CompareOptions {
  CompareGroupBy group_by = CompareGroupBy::kName;
};

// Durations of the calls of one name on one side.
struct CallStatistics {
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;  // torch's self time (TaskSelfTimes; kernels: = total)
  int64_t min_ns = 0;   // 0 without calls
  int64_t max_ns = 0;
  double mean_ns() const {
    return calls > 0 ? static_cast<double>(total_ns) / static_cast<double>(calls) : 0.0;
  }
  void Add(int64_t duration_ns, int64_t self_duration_ns);
};

// comparison / base (msprof-analyze's Diff Ratio): +inf when only the comparison has any, 1
// when neither has.
double DiffRatio(double comparison, double base);

// By total time: added (base has no call), removed (comparison has none), slower, faster,
// unchanged (equal totals).
enum class Change : uint8_t { kAdded, kRemoved, kSlower, kFaster, kUnchanged };
std::string_view ChangeName(Change change);  // "added", "removed", "slower", ...

struct NameDelta {
  std::string name;
  std::string type;         // the slice category: cpu_op, user_annotation, kernel, ...
  std::string input_shape;  // --group-by=shape: msprof Input Shapes ("32,64;;64"), else ""
  CallStatistics base, comparison;

  Change change() const;
  int64_t diff_calls() const {
    return static_cast<int64_t>(comparison.calls) - static_cast<int64_t>(base.calls);
  }
  int64_t diff_total_ns() const { return comparison.total_ns - base.total_ns; }
  int64_t diff_self_ns() const { return comparison.self_ns - base.self_ns; }
  double diff_mean_ns() const { return comparison.mean_ns() - base.mean_ns(); }
  // DiffRatio of the totals and of the means.
  double total_ratio() const;
  double mean_ratio() const;
};

// The step figures compared, in msprof step_trace_time's terms.
enum class StepFigure : uint8_t {
  kStepTime,  // the step's window on the scope (end − begin)
  kComputing,
  kCommunicationNotOverlapped,
  kCommunication,
  kFree,
  kPreparing,
};
inline constexpr size_t kStepFigureCount = 6;
// "Step Time", "Computing", "Communication(Not Overlapped)", "Communication", "Free",
// "Preparing".
std::string_view StepFigureName(StepFigure figure);
using StepFigures = std::array<double, kStepFigureCount>;  // ns, indexed by StepFigure

// One paired step of a paired scope, or (mean) the mean over all steps of each side.
struct StepDelta {
  int32_t device_id = -1;  // the scope: a device, or (-1) a host process on CPU-only runs
  int32_t rank = -1;
  uint32_t base_pid = 0;  // the scope's process (device processes: the device id)
  uint32_t comparison_pid = 0;
  bool mean = false;
  uint64_t base_step = 0;  // step numbers (mean: 0)
  uint64_t comparison_step = 0;
  uint64_t base_steps = 1;  // steps behind the figures (1, or each side's count for a mean)
  uint64_t comparison_steps = 1;
  StepFigures base{}, comparison{};

  double diff_ns(StepFigure figure) const {
    const size_t i = static_cast<size_t>(figure);
    return comparison[i] - base[i];
  }
  // DiffRatio of the figure.
  double ratio(StepFigure figure) const {
    const size_t i = static_cast<size_t>(figure);
    return DiffRatio(comparison[i], base[i]);
  }
};

// What one side was.
struct ComparedRun {
  std::string label;  // the path given
  std::optional<model::StepRange> iterations;
  StepSource step_source = StepSource::kNone;
  uint64_t steps = 0;
  bool device_run = false;
  uint64_t dropped_records = 0;
};

struct RunComparison {
  CompareOptions options;
  ComparedRun base, comparison;
  std::vector<NameDelta> operators;  // by diff_total_ns, largest regression first
  std::vector<NameDelta> kernels;    // likewise
  // Per scope pair (scopes paired by device and rank, in order): its step pairs (i-th step
  // with i-th step), then its mean row.
  std::vector<StepDelta> steps;
  std::vector<std::string> notes;  // what the reader must know (unequal step counts, ...)
};

// Labels of `ComparedRun` are left empty for the caller.
RunComparison CompareRuns(const model::Model& base_model, const AnalysisSet& base,
                          const model::Model& comparison_model, const AnalysisSet& comparison,
                          const CompareOptions& options = {});

// The calls of one name on one side.
struct NameCalls {
  std::string type, name, input_shape;
  CallStatistics calls;
};
enum class CallKind : uint8_t { kOperators, kKernels };

// Per-name statistics of one side, keyed by type, name and (kNameAndShape) input shapes, in
// no particular order; with --iteration-id (set.options.iterations) only the slices that
// start inside the window of the set's steps.
std::vector<NameCalls> CollectCalls(const model::Model& model, const AnalysisSet& set,
                                    CallKind kind, CompareGroupBy group_by);

// Pairs the names of both sides; ranked by diff_total_ns, largest regression first.
std::vector<NameDelta> MatchCalls(std::vector<NameCalls> base, std::vector<NameCalls> comparison);

// The mean row and per-step rows of the step comparison (see RunComparison::steps).
std::vector<StepDelta> CompareSteps(const model::Model& base_model, const AnalysisSet& base,
                                    const model::Model& comparison_model,
                                    const AnalysisSet& comparison, std::vector<std::string>* notes);

}  // namespace aiprof::analysis
