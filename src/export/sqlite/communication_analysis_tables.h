// msprof's communication analysis tables (CommAnalyzerTime, CommAnalyzerBandwidth,
// CommAnalyzerMatrix; docs/db-schema.md) from analysis/communication_analysis.h; the files
// of the same analysis are export/analysis/communication_files.h.
#pragma once

#include <string>

#include "analysis/communication_analysis.h"

namespace aiprof::exporter {

class Database;  // database.h

// Replaces the three CommAnalyzer* tables of `db` with the analysis' rows, inside the
// caller's transaction.
bool WriteCommunicationTables(Database& db, const analysis::CommunicationAnalysis& analysis,
                              std::string* error);
// The same tables written into the existing database at `path` (one transaction).
bool WriteCommunicationTables(const std::string& path,
                              const analysis::CommunicationAnalysis& analysis, std::string* error);

}  // namespace aiprof::exporter
