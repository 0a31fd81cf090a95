// `aiprof analyze`: for each run under the inputs (model/discovery.h: PROF_* directories,
// Kineto traces, folders of them), parse it, run the analyses, print a compact report and
// write the analysis files into the run's aiprof_output/analysis/ (text), or analysis.db
// there (db). Exit codes follow src/cli/command.h.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "export/csv/summary_writer.h"
#include "export/export_job.h"
#include "model/filter.h"

namespace aiprof::exporter {

struct AnalyzeOptions {
  // PROF_* directories, Kineto traces, or folders holding them.
  std::vector<std::string> inputs;
  ExportType type = ExportType::kText;
  std::optional<model::StepRange> iterations;
  SummaryFormat summary_format = SummaryFormat::kCsv;
  unsigned threads = 2;
  // --critical-path: print each step's critical path and what-if projections; with several
  // PROF_* directories also the run's, from all of them parsed together
  // (critical_path_job.h).
  bool critical_path = false;
};

// The report and the paths written go to `out`, problems to `err`.
ExportResult RunAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace aiprof::exporter
