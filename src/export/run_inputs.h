// The runs a command reads, found once for every command (model/discovery.h) and told the
// same way: what was left out, which runs belong to one process, and why there is none.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "model/discovery.h"

namespace aiprof::exporter {

// The runs under `paths`; false, having said why on `err` ("<command>: ..."), when there is
// none. The discovery's notes go to `err` too.
bool FindRuns(const std::vector<std::string>& paths, std::string_view command, std::ostream& err,
              std::vector<model::RunInput>* runs);

// "<PROF_*> holds no raw data (expected host/data/*.data); ..." for a run without files.
std::string NoDataMessage(const model::RunInput& run);

// Where exports of a run are locked (export_lock.h) and their leftovers removed: its PROF_*
// directory, or a trace's output folder (created here), never the user's folder the trace lies
// in, which other runs and files share.
std::string ExportLockDir(const model::RunInput& run);

// Where a report over several inputs goes: <the deepest folder holding every input (a trace
// file's folder)>/aiprof_output/analysis.
std::string JobAnalysisDir(const std::vector<std::string>& inputs);

}  // namespace aiprof::exporter
