// Writes the model as one SQLite database (aiprof_{ts}.db); schema in docs/db-schema.md.
// ns timestamps (Unix epoch), integer ids, string columns as STRING_IDS ids; large tables
// through row_source.h, indexes built after the inserts; with a second thread, most of a
// large MSTX_EVENTS written beside it into a side database and appended (database.h
// MergeFrom), and MstxStartIndex written from entries put in order beside it
// (presorted_index.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

inline constexpr const char* kDbSchemaVersion = "1.0.0";

// With `analyses`, their tables too (export/sqlite/analysis_tables.h).
bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error,
                 const analysis::AnalysisSet* analyses = nullptr);

// The analyses the database reads, which may still be running on another thread when the
// writer starts: called (from either of the writer's threads) when the writer needs them,
// it waits for them; null means none (the writer computes the few figures it needs).
using AnalysesWait = std::function<const analysis::AnalysisSet*()>;

struct SqliteOptions {
  // With 2, a helper thread puts MSTX_EVENTS' index entries in order and writes the back
  // rows of that table the writer has not reached into a side database, appended before
  // the entries become MstxStartIndex (the file's tables, rows, indexes and order are the
  // same either way).
  int threads = 2;
  // The fewest MSTX_EVENTS rows worth a helper.
  size_t side_min_rows = size_t{1} << 16;
};

bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error,
                 const AnalysesWait& analyses, const SqliteOptions& options);

}  // namespace aiprof::exporter
