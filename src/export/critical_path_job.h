// `aiprof analyze --critical-path` over several PROF_* directories: the directories of one run
// (a job's ranks, a training process and its DataLoader workers) parsed together into one
// model, so the path can cross processes and ranks; its report printed and the critical path
// files (critical_path_files.h; critical_path.db with --type=db) written into
// <output>/aiprof_output/analysis/.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "export/analyze_job.h"

namespace aiprof::exporter {

// False when nothing could be analysed (errors on `err`); `written` gets the paths.
bool RunJobCriticalPath(const std::vector<std::string>& dirs, const AnalyzeOptions& options,
                        std::ostream& out, std::ostream& err, std::vector<std::string>* written);

}  // namespace aiprof::exporter
