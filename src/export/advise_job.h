// `aiprof advise`: parse every PROF_* directory under each --output (several ranks: several
// profiles), run the analyses once per profile, evaluate the advice rules over all of them
// and print the ranked report; advice.json and advice.html go to the report directory.
// Exit codes follow src/cli/command.h.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "export/export_job.h"
#include "model/filter.h"

namespace aiprof::exporter {

struct AdviseOptions {
  std::vector<std::string> outputs;  // PROF_* directories or parents of several
  std::string config;                // JSON threshold overrides; empty: defaults
  std::optional<model::StepRange> iterations;
  std::string report_dir;  // empty: <common parent of the outputs>/aiprof_output/analysis
  bool color = false;
  unsigned threads = 2;
};

// The report and the paths written go to `out`, problems to `err`.
ExportResult RunAdvise(const AdviseOptions& options, std::ostream& out, std::ostream& err);

}  // namespace aiprof::exporter
