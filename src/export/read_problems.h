// What went wrong while reading a PROF_* directory, told the same way by every command
// that parses one (export, analyze).
#pragma once

#include <iosfwd>
#include <string_view>

#include "model/model.h"

namespace aiprof::exporter {

// Lines "<command>: ..." for skipped files, damaged chunks or events, what an importer read
// but did not map (its notes), unknown record kinds and unmatched range ends.
void ReportReadProblems(const model::Model& model, std::string_view command, std::ostream& err);

}  // namespace aiprof::exporter
