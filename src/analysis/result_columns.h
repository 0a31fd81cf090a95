// The description of a result's columns, read by every writer of the result: the summary
// files (CSV/JSON, export/csv/summary_writer.h), the SQLite tables (export/sqlite/), the UI
// API (server/) and the cluster's files and database (export/cluster/). A column says its
// names, unit, type and how its value is read from a row, so a derived column is computed
// once, by its accessor, and adding a column to a result is one edit of its description.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace aiprof::analysis {

// What a column's integer value measures, and so how each writer spells it: durations are
// ns in the model and the UI API, µs in msprof's files (3 decimals) and tables (REAL).
enum class ColumnUnit : uint8_t {
  kNanoseconds,  // files: µs, 3 decimals; database: REAL µs; UI: integer ns
  kCount,        // an integer everywhere
  kBytes,        // an integer everywhere
};

// Which writers show a column: msprof's files and tables keep their published columns, the
// UI API adds the parts it charts.
enum ColumnWriter : uint8_t {
  kFiles = 1,     // summary files (CSV/JSON) and the cluster's files
  kDatabase = 2,  // SQLite tables (the export's and the cluster's)
  kUi = 4,        // the UI API's JSON (and its TypeScript types, web/src/api.ts)
  kEveryWriter = kFiles | kDatabase | kUi,
};

template <typename Row>
struct Column {
  std::string_view header;   // summary file header: msprof's name ("Communication(Not ...)")
  std::string_view key;      // UI API key, and the database column unless `db_name` is set
  std::string_view db_name;  // the database column where msprof's table spells it otherwise
  ColumnUnit unit = ColumnUnit::kNanoseconds;
  uint8_t writers = kEveryWriter;
  int64_t (*value)(const Row&) = nullptr;
  // A negative value means "not known": N/A in the files, NULL in the tables and the UI.
  bool null_when_negative = false;

  bool IsNull(int64_t v) const { return null_when_negative && v < 0; }

  bool WrittenBy(ColumnWriter writer) const { return (writers & writer) != 0; }
  std::string_view DatabaseName() const { return db_name.empty() ? key : db_name; }
  // The SQLite type of the column's values.
  std::string_view DatabaseType() const {
    return unit == ColumnUnit::kNanoseconds ? "REAL" : "INTEGER";
  }
};

template <typename Row>
using Columns = std::span<const Column<Row>>;

// A duration column's value as msprof's tables hold it: µs.
inline double MicrosValue(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

}  // namespace aiprof::analysis
