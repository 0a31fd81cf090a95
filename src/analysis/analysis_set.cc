#include "analysis/analysis_set.h"

#include <algorithm>
#include <set>
#include <string>

namespace aiprof::analysis {

std::string AnalysisInputs::Describe() const {
  std::string text = device_run ? "CUDA run" : "CPU-only run";
  text += ": compute = " + std::string(ComputeInputName(compute));
  text += device_run ? " on " + std::to_string(devices) + " device(s)"
                     : " in " + std::to_string(host_processes) + " process(es)";
  text += "; steps from " + std::string(StepSourceName(step_source)) + " (" +
          std::to_string(steps) +
          (step_loops > 1 ? " in " + std::to_string(step_loops) + " loops" : "") + ")";
  text += "; " + std::to_string(communication_ops) + " communication op(s)";
  if (!ranks.empty()) text += "; " + std::to_string(ranks.size()) + " rank(s)";
  if (dropped_records > 0) text += "; " + std::to_string(dropped_records) + " record(s) dropped";
  return text;
}

AnalysisSet RunAnalyses(const model::Model& model, const AnalysisOptions& options) {
  AnalysisSet set;
  set.options = options;
  set.steps = StepsOf(model, options.iterations);
  {
    // The busy periods before the overlap and the rest, and released before them: the
    // activities (5 bytes each) are the largest scratch of the analyses, and are held
    // beside the fewest results this way (the server's peak memory).
    const Activities activities = SelectActivities(model);
    set.kernel_breakdown = ComputeKernelBreakdown(model, activities);
    set.idle_time = ComputeIdleTime(model, activities);
    if (!set.steps.steps.empty()) {
      IdleTimeOptions in_steps;
      in_steps.window_begin_ns = INT64_MAX;
      in_steps.window_end_ns = INT64_MIN;
      for (const StepSpan& step : set.steps.steps) {
        in_steps.window_begin_ns = std::min(in_steps.window_begin_ns, step.begin_ns);
        in_steps.window_end_ns = std::max(in_steps.window_end_ns, step.end_ns);
      }
      set.idle_time_in_steps = ComputeIdleTime(model, activities, in_steps);
    }
  }
  set.communication = model::ClassifyCommunication(model);
  set.overlap = ComputeOverlap(model, set.communication.ops);
  set.data_preparation = ComputeDataPreparation(model, set.steps);
  set.step_breakdown = ComputeStepBreakdown(model, set.overlap, set.steps, set.data_preparation);
  set.memory = ComputeMemoryAnalysis(model, set.steps);
  if (!model.cpu.empty()) set.cpu_profile = SymbolizeCpuProfile(model);
  set.communication_analysis = ComputeCommunicationAnalysis(model, set.communication, set.steps);
  if (options.critical_path) set.critical_path = ComputeCriticalPath(model, set);

  AnalysisInputs& in = set.inputs;
  in.device_run = set.overlap.device_run;
  for (const OverlapScope& scope : set.overlap.scopes) {
    if (in.compute == ComputeInput::kNone) in.compute = scope.compute_input;
    if (scope.device_id >= 0) ++in.devices;
  }
  for (size_t p = 0; p < model.processes.size(); ++p) {
    if (model.processes.device_id[p] < 0) ++in.host_processes;
    int32_t rank = model.processes.rank[p];
    if (rank >= 0 && std::find(in.ranks.begin(), in.ranks.end(), rank) == in.ranks.end()) {
      in.ranks.push_back(rank);
    }
  }
  std::sort(in.ranks.begin(), in.ranks.end());
  in.step_source = set.steps.source;
  in.steps = set.steps.steps.size();
  std::set<std::pair<uint32_t, uint32_t>> loops;  // (thread, loop ordinal)
  for (const StepSpan& step : set.steps.steps) loops.insert({step.thread, step.loop});
  in.step_loops = loops.size();
  in.communication_ops = set.communication.ops.size();
  in.dropped_records = model.drops.total();
  return set;
}

}  // namespace aiprof::analysis
