// Writes the model as one SQLite database (aiprof_{ts}.db); schema in docs/db-schema.md.
// ns timestamps (Unix epoch), integer ids, string columns as STRING_IDS ids; one
// transaction, large tables through row_source.h, indexes built after the inserts.
#pragma once

#include <string>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

inline constexpr const char* kDbSchemaVersion = "1.0.0";

// With `analyses`, their tables too (export/sqlite/analysis_tables.h).
bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error,
                 const analysis::AnalysisSet* analyses = nullptr);

}  // namespace aiprof::exporter
