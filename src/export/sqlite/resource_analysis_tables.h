// The data-preparation, memory, kernel and idle-time analysis tables of the SQLite outputs
// (docs/db-schema.md, "Analysis tables"), beside analysis_tables.h's: times in ns, memory in
// bytes; a process is named by deviceId (-1 for a host process) and globalPid (as the other
// tables: a device has bit 31 set).
#pragma once

#include <string>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

class Database;  // database.h

// Creates and fills the tables inside the caller's transaction; `rows` is registered on `db`.
bool WriteResourceAnalysisTables(Database& database, const model::Model& model,
                                 const analysis::AnalysisSet& set, std::string* error);

}  // namespace aiprof::exporter
