// `aiprof export`: for each PROF_* directory under --output, parse the raw data, run the
// analyses (analysis/analysis_set.h) and write the timeline, summaries and analysis files
// (text) or the database with the analysis tables (db). One local-time stamp per run names
// every output file (msprof's layout: PROF_*/aiprof_output/{name}_{ts}.csv). A PROF_* that
// is the only one inside a torch_npu-style result folder (`*_aiprof_pt`, `*_ascend_pt`,
// what the Python API writes) is exported into that folder's aiprof_output/ with
// torch_npu's fixed names instead (trace_view.json, step_trace.csv, ...,
// aiprof_pytorch_profiler.db). Exit codes follow src/cli/command.h.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "export/csv/summary_writer.h"
#include "model/filter.h"

namespace aiprof::exporter {

enum class ExportType { kText, kDb };
enum class TimelineFormat { kJson, kPerfetto };

struct ExportOptions {
  std::string output;  // a PROF_* directory or a parent of several
  // More of them exported in the same run (the launcher's new PROF_* directories): the
  // ranks of one job exported together get their communication wait (CommunicationOutputs).
  std::vector<std::string> more_outputs;
  ExportType type = ExportType::kText;
  std::optional<model::StepRange> iterations;
  SummaryFormat summary_format = SummaryFormat::kCsv;
  TimelineFormat timeline_format = TimelineFormat::kJson;
  bool clear = false;
  // --critical-path=on: the critical path and its projections (AnalysisOptions): its files,
  // tables, timeline lane and advice.json's projected savings.
  bool critical_path = false;
  unsigned threads = 2;
  std::string timestamp;        // empty: now, local time YYYYMMDDhhmmss
  bool progress_lines = false;  // stages as plain lines when stderr is not a terminal
  // Unset: fixed names inside a `*_pt` result folder, msprof's timestamped names elsewhere.
  std::optional<FileNaming> naming;
};

struct ExportResult {
  int exit_code = 0;
  std::vector<std::string> written;
};

// Messages (what was written, what was skipped, errors) go to `out` / `err`.
ExportResult RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

std::string LocalTimestamp();  // YYYYMMDDhhmmss

}  // namespace aiprof::exporter
