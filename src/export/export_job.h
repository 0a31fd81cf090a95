// `aiprof export`: for each PROF_* directory under --output, parse the raw data, run the
// analyses (analysis/analysis_set.h) and write the timeline, summaries and analysis files
// (text) or the database with the analysis tables (db). One local-time stamp per run names
// every output file. Exit codes follow src/cli/command.h.
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
  ExportType type = ExportType::kText;
  std::optional<model::StepRange> iterations;
  SummaryFormat summary_format = SummaryFormat::kCsv;
  TimelineFormat timeline_format = TimelineFormat::kJson;
  bool clear = false;
  unsigned threads = 2;
  std::string timestamp;  // empty: now, local time YYYYMMDDhhmmss
};

struct ExportResult {
  int exit_code = 0;
  std::vector<std::string> written;
};

// Messages (what was written, what was skipped, errors) go to `out` / `err`.
ExportResult RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

std::string LocalTimestamp();  // YYYYMMDDhhmmss

}  // namespace aiprof::exporter
