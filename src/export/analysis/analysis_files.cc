#include "export/analysis/analysis_files.h"

#include <filesystem>

#include "export/analysis/critical_path_files.h"
#include "export/analysis/resource_analysis_files.h"
#include "export/sqlite/analysis_tables.h"

namespace aiprof::exporter {

std::string ScopeDeviceId(int32_t device_id, uint32_t pid) {
  return device_id >= 0 ? std::to_string(device_id) : "host:" + std::to_string(pid);
}

std::string ScopeDeviceId(const model::Model& m, const analysis::OverlapScope& scope) {
  return ScopeDeviceId(scope.device_id, m.processes.pid[scope.process]);
}

namespace {

void WriteStepTraceTime(const model::Model& m, const analysis::AnalysisSet& set,
                        const SummaryTarget& target) {
  const std::vector<analysis::StepBreakdownRow>& rows = set.step_breakdown.rows;
  if (rows.empty()) return;
  std::vector<std::string> headers = {"Device_id", "Step"};
  AppendHeaders<analysis::StepParts>(headers, analysis::kStepTraceTimeColumns);
  SummaryWriter w(target, "step_trace_time", std::move(headers), rows.size());
  bool has_steps = set.step_breakdown.step_source != analysis::StepSource::kNone;
  for (const analysis::StepBreakdownRow& r : rows) {
    w.Text(ScopeDeviceId(m, set.overlap.scopes[r.scope]));
    if (has_steps) {
      w.Step(r.step, r.loop, set.steps.several_loops);
    } else {
      w.NotApplicable();
    }
    w.Cells<analysis::StepParts>(analysis::kStepTraceTimeColumns, r);
    w.EndRow();
  }
}

void WriteOverlapTotals(const model::Model& m, const analysis::AnalysisSet& set,
                        const SummaryTarget& target) {
  if (set.overlap.scopes.empty()) return;
  SummaryWriter w(target, "overlap_analysis",
                  {"Device_id", "Rank", "Compute Input", "Compute Tasks", "Communication Ops",
                   "Span(us)", "Computing(us)", "Communication(us)",
                   "Communication(Not Overlapped)(us)", "Overlapped(us)", "Free(us)"},
                  set.overlap.scopes.size());
  for (const analysis::OverlapScope& scope : set.overlap.scopes) {
    int64_t lanes[analysis::kOverlapLaneCount] = {0, 0, 0, 0};
    analysis::ForEachLaneInterval(scope, [&](analysis::OverlapLane lane, analysis::Interval i) {
      lanes[static_cast<int>(lane)] += i.length();
    });
    int64_t computing = lanes[0], communication = lanes[1], not_overlapped = lanes[2];
    w.Text(ScopeDeviceId(m, scope)).Number(scope.rank);
    w.Text(analysis::ComputeInputName(scope.compute_input));
    w.Unsigned(scope.compute_tasks).Unsigned(scope.communication_ops);
    w.Micros(scope.last_ns - scope.first_ns).Micros(computing).Micros(communication);
    w.Micros(not_overlapped).Micros(communication - not_overlapped).Micros(lanes[3]);
    w.EndRow();
  }
}

void WriteInputs(const analysis::AnalysisSet& set, const SummaryTarget& target) {
  std::vector<std::string> headers;
  AppendHeaders<analysis::AnalysisInputs>(headers, analysis::kAnalysisInputsColumns);
  SummaryWriter w(target, "analysis_inputs", std::move(headers), 1);
  w.Cells<analysis::AnalysisInputs>(analysis::kAnalysisInputsColumns, set.inputs).EndRow();
}

}  // namespace

void WriteAnalysisFiles(const model::Model& model, const analysis::AnalysisSet& set,
                        const SummaryTarget& target) {
  WriteInputs(set, target);
  WriteStepTraceTime(model, set, target);
  WriteOverlapTotals(model, set, target);
  WriteResourceAnalysisFiles(model, set, target);
  WriteCriticalPathFiles(model, set, target);
}

namespace {

// The analysis files of WriteAnalysisFiles but step_trace_time.csv, which goes to
// `deliverables` with the communication files (torch_npu's place for them).
void WriteFixedLayout(const model::Model& model, const analysis::AnalysisSet& set,
                      const SummaryTarget& target, const SummaryTarget& deliverables) {
  WriteInputs(set, target);
  WriteStepTraceTime(model, set, deliverables);
  WriteOverlapTotals(model, set, target);
  WriteResourceAnalysisFiles(model, set, target);
  WriteCriticalPathFiles(model, set, target);
}

}  // namespace

void WriteAnalysisOutputs(const model::Model& model, const analysis::AnalysisSet& set,
                          const std::string& output_dir, bool db, SummaryFormat format,
                          std::vector<std::string>* written, std::vector<std::string>* errors,
                          FileNaming naming, CommunicationOutputs* communication) {
  std::filesystem::path dir = std::filesystem::path(output_dir) / kAnalysisDir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    errors->push_back("cannot create " + dir.string() + ": " + ec.message());
    return;
  }
  if (db) {
    std::string path = (dir / "analysis.db").string(), error;
    if (WriteAnalysisDb(model, set, path, &error)) {
      written->push_back(path);
      if (communication != nullptr) communication->Add(set.communication_analysis, "", path);
    } else {
      errors->push_back(error);
    }
    return;
  }
  const SummaryTarget target{dir.string(), "", format, written, errors};
  const bool fixed = naming == FileNaming::kFixed;
  const std::string deliverables = fixed ? output_dir : dir.string();
  if (fixed) {
    WriteFixedLayout(model, set, target,
                     SummaryTarget{output_dir, "", format, written, errors, FileNaming::kFixed});
  } else {
    WriteAnalysisFiles(model, set, target);
  }
  if (communication != nullptr) {
    communication->Add(set.communication_analysis, deliverables, "");
  } else if (!set.communication_analysis.ops.empty()) {
    WriteCommunicationFiles(set.communication_analysis, deliverables, written, errors);
  }
}

}  // namespace aiprof::exporter
