// The analysis tables of the SQLite export (docs/db-schema.md), written into the main
// database by `aiprof export --type=db` and into aiprof_output/analysis/analysis.db by
// `aiprof analyze --type=db`: OVERLAP_ANALYSIS (msprof's table and lane enum),
// StepTraceTime (msprof-analyze's analysis.db table; its nine time columns in µs as its
// CSV, plus ns bounds), ANALYSIS_INPUTS (what the run had), CommAnalyzerTime/Bandwidth/
// Matrix (msprof's communication analysis, export/analysis/communication_files.h).
#pragma once

#include <string>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

class Database;  // database.h

// Creates and fills the tables inside the caller's transaction; `rows` is registered on `db`.
bool WriteAnalysisTables(Database& database, const model::Model& model,
                         const analysis::AnalysisSet& set, std::string* error);

// A database holding only the analysis tables (replaced if it exists).
bool WriteAnalysisDb(const model::Model& model, const analysis::AnalysisSet& set,
                     const std::string& path, std::string* error);

}  // namespace aiprof::exporter
