// The critical path's tables of the SQLite outputs (docs/db-schema.md "Critical path"),
// beside analysis_tables.h's: CRITICAL_PATH_STEP (per step: time, critical rank and thread,
// the path's ns per category), CRITICAL_PATH_RANK (each rank's own path), CRITICAL_PATH_SEGMENT
// (the job's path piece by piece), CRITICAL_PATH_SLACK (per step, the near-critical work:
// the slices off the path with the least slack), CRITICAL_PATH_WHAT_IF (per step and
// projection: projected time), ENUM_CRITICAL_PATH_CATEGORY. Times in ns.
#pragma once

#include <string>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

class Database;  // database.h

// Creates and fills the tables inside the caller's transaction when the set has the critical
// path (AnalysisOptions::critical_path); nothing otherwise.
bool WriteCriticalPathTables(Database& database, const model::Model& model,
                             const analysis::AnalysisSet& set, std::string* error);

}  // namespace aiprof::exporter
