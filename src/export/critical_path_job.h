// `aiprof analyze --critical-path` over several runs (PROF_* directories or imported traces):
// the runs of one job (its ranks, a training process and its DataLoader workers) parsed
// together into one model, so the path can cross processes and ranks; its report printed and
// the critical path files (critical_path_files.h; critical_path.db with --type=db) written
// into <the inputs' common folder>/aiprof_output/analysis/ (run_inputs.h's JobAnalysisDir).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/critical_path/critical_path.h"
#include "export/analyze_job.h"
#include "model/discovery.h"

namespace aiprof::exporter {

// The standard what-if projections of `runs` parsed together as one run, re-solved on the
// job's critical path (which crosses ranks and processes, so "the slowest rank at the median
// rank's speed" applies, and a waiting rank's communication is not counted as the job's):
// what `aiprof advise` ranks its findings by when given several runs. False,
// with a message on `err`, when the run has no readable records or the selection no step.
bool JobWhatIfs(const std::vector<model::RunInput>& runs,
                const std::optional<model::StepRange>& iterations, unsigned threads,
                std::string_view command, std::ostream& err,
                std::vector<analysis::WhatIfSummary>* what_ifs);

// False when nothing could be analysed (errors on `err`); `written` gets the paths.
bool RunJobCriticalPath(const std::vector<model::RunInput>& runs, const AnalyzeOptions& options,
                        std::ostream& out, std::ostream& err, std::vector<std::string>* written);

}  // namespace aiprof::exporter
