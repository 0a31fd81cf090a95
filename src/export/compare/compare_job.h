// `aiprof compare`: loads each side (a PROF_* directory, a parent of several, or an
// aiprof_output directory inside one; all the PROF_* of a side make one model), runs the
// analyses once per side (with its --iteration-id steps), compares (analysis/compare),
// prints the report and writes the CSV files. Exit codes follow src/cli/command.h.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "analysis/compare/run_comparison.h"
#include "export/export_job.h"
#include "model/filter.h"

namespace aiprof::exporter {

struct CompareJobOptions {
  std::string base;
  std::string comparison;  // empty: the base again (two steps of one run)
  std::optional<model::StepRange> base_steps, comparison_steps;
  analysis::CompareGroupBy group_by = analysis::CompareGroupBy::kName;
  std::string output_dir;  // empty: <comparison run>/aiprof_output/compare
  bool colour = false;
  unsigned threads = 2;
};

// The report and the paths written go to `out`, problems to `err`.
ExportResult RunCompare(const CompareJobOptions& options, std::ostream& out, std::ostream& err);

}  // namespace aiprof::exporter
