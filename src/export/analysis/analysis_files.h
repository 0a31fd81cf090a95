// The analysis files written beside the exports, in aiprof_output/analysis/ (msprof-analyze
// names and headers where it has them; docs/analysis.md explains every column):
//   step_trace_time.csv   per step and scope: msprof-analyze's step_trace_time columns (µs)
//   overlap_analysis.csv  per scope: the overlap lanes' totals and what they were built from
//   analysis_inputs.csv   one row: what the run had (CPU-only/CUDA, step source, ranks, ...)
//   communication.json, communication_matrix.json   per communication op: msprof's time
//                         split, bandwidth and src→dst matrix (communication_files.h)
// With --summary-format=json, .json arrays with the same keys.
#pragma once

#include <string>
#include <vector>

#include "analysis/analysis_set.h"
#include "export/analysis/communication_files.h"
#include "export/csv/summary_writer.h"
#include "format/output_layout.h"
#include "model/model.h"

namespace aiprof::exporter {

using format::kAnalysisDir;

// `target.dir` is the analysis directory; its timestamp is left empty by the callers so the
// files carry msprof-analyze's names.
void WriteAnalysisFiles(const model::Model& model, const analysis::AnalysisSet& set,
                        const SummaryTarget& target);

// Writes the analysis files into `<output_dir>/analysis/` (text), or there the analysis
// tables as analysis.db (db: msprof-analyze's name). Paths written and errors are appended.
// kFixed naming (a torch_npu-shaped result folder): torch_npu's own deliverables
// (step_trace_time.csv, communication.json, communication_matrix.json) go into
// `output_dir` itself, beside trace_view.json, as in ASCEND_PROFILER_OUTPUT. The
// communication files are handed to `communication` when given (written when the export
// run has every rank: CommunicationOutputs::Finish), else written at once.
void WriteAnalysisOutputs(const model::Model& model, const analysis::AnalysisSet& set,
                          const std::string& output_dir, bool db, SummaryFormat format,
                          std::vector<std::string>* written, std::vector<std::string>* errors,
                          FileNaming naming = FileNaming::kTimestamped,
                          CommunicationOutputs* communication = nullptr);

// "0" for device 0, "host:<pid>" for a host process (CPU-only runs).
std::string ScopeDeviceId(const model::Model& model, const analysis::OverlapScope& scope);
// The same from the scope's device id (-1: host process) and process id.
std::string ScopeDeviceId(int32_t device_id, uint32_t pid);

}  // namespace aiprof::exporter
