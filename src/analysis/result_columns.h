// The description of a result's columns, read by every writer of the result: the summary
// files (CSV/JSON, export/csv/summary_writer.h), the SQLite tables (export/sqlite/), the UI
// API (server/), the communication JSON files (export/analysis/communication_files.h) and the
// cluster's files and database (export/cluster/, export/sqlite/cluster_db.h), the cluster's
// own results included (its diagnosis, ranks and host clocks: cluster/slow_ranks.h,
// cluster/cluster_merge.h), and `aiprof compare`'s (compare/compare_columns.h). A column says its
// names, unit, type and how its value is read from a row, so a derived column is computed once, by
// its accessor, and adding a column to a result is one edit of its description.
//
// A writer's own key columns (the step as the user names it, the thread id, the device or
// process, a pool's name) need the model or the whole result, not the row, and are written
// by the writer around the described columns.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace aiprof::analysis {

// What a column's value measures, and so how each writer spells it.
enum class ColumnUnit : uint8_t {
  kNanoseconds,         // msprof's durations: files µs (3 decimals); tables REAL µs; UI ns
  kNanosecondsInteger,  // aiprof's `...Ns` table columns: files µs (3 decimals); tables ns
                        // (INTEGER, REAL for a real-valued column); UI ns
  kMilliseconds,        // msprof's communication times: ns / 1e6, a real in files and tables
  kCount,               // an integer everywhere
  kBytes,               // an integer everywhere
  kMegabytes,           // a real number of MB, written as it is
  kGigabytesPerSecond,  // a bandwidth (GB/s), a real written as it is
  kRatio,               // a share in [0, 1], rounded to 4 decimals in files and tables
  kPercent,             // a share in [0, 1] shown as 100 × the share rounded to 4 decimals
  kPercentage,          // aiprof's own percentages (0–100, the accessor's value): files with
                        // 2 fixed decimals ("12.50"), tables and the UI as they are
  kFlag,                // 0 or 1: files "yes"/"no", tables 0/1, UI false/true
  kText,                // text (the `text` accessor): files and tables as it is, UI a string
  kTimestamp,           // a time (ns): files µs (3 decimals); tables INTEGER ns; UI ns from
                        // the run's origin
  kTimestampMicros,     // msprof's times (ns): files µs (3 decimals); tables REAL µs; UI ns
                        // from the run's origin
  kMeanNanoseconds,     // a real number of ns (a mean): files ns / 1000 with 3 fixed decimals,
                        // not rounded to a whole ns first; tables REAL µs; UI ns as a real
  kDiffRatio,           // comparison / base (msprof-analyze compare's Diff Ratio), +inf when
                        // only the comparison has any: files 4 fixed decimals or "inf"; tables
                        // REAL; UI a number, null when infinite
};

// Which writers show a column: msprof's files and tables keep their published columns, the
// UI API adds the parts it charts.
enum ColumnWriter : uint8_t {
  kFiles = 1,     // summary files (CSV/JSON), communication JSON files, the cluster's files
  kDatabase = 2,  // SQLite tables (the export's; the cluster's own results' in cluster.db)
  kUi = 4,        // the UI API's JSON (and its TypeScript types, web/src/api.ts)
  kEveryWriter = kFiles | kDatabase | kUi,
  // msprof-analyze's cluster_analysis.db tables of a per-rank result (the cluster's
  // communication tables, export/sqlite/cluster_db.h): its own column names and order, and
  // its values rounded to ClusterDecimals.
  kClusterTables = 8,
  // With kFiles or kDatabase, a column of the cluster's own results (export/cluster/): shown
  // only where the parallel layout is known (cluster/parallel_layout.h), so a job without
  // one keeps its outputs as they were.
  kWithParallelLayout = 16,
};

// msprof's rounding of a share: 4 decimals.
inline double RoundedRatio(double ratio) {
  return std::round(ratio * 1e4) / 1e4;
}

// part / whole, 0 when there is no whole: the share every ratio column derives.
inline double Share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// value rounded to `decimals` decimals.
inline double RoundedTo(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

// Whether files and tables hold the unit's integer values as reals (µs, ms, shares).
inline bool HeldAsReal(ColumnUnit unit) {
  switch (unit) {
    case ColumnUnit::kNanoseconds:
    case ColumnUnit::kMilliseconds:
    case ColumnUnit::kMegabytes:
    case ColumnUnit::kGigabytesPerSecond:
    case ColumnUnit::kRatio:
    case ColumnUnit::kPercent:
    case ColumnUnit::kPercentage:
    case ColumnUnit::kTimestampMicros:
    case ColumnUnit::kMeanNanoseconds:
    case ColumnUnit::kDiffRatio:
      return true;
    default:
      return false;
  }
}

// The fixed decimals msprof-analyze's cluster files write a unit's reals with, and its
// tables round them to: µs 3, ms and MB 6, GB/s and ratios 4; -1 for the others (written as
// they are).
inline int ClusterDecimals(ColumnUnit unit) {
  switch (unit) {
    case ColumnUnit::kNanoseconds:
    case ColumnUnit::kTimestampMicros:
    case ColumnUnit::kMeanNanoseconds:
      return 3;
    case ColumnUnit::kMilliseconds:
    case ColumnUnit::kMegabytes:
      return 6;
    case ColumnUnit::kGigabytesPerSecond:
    case ColumnUnit::kRatio:
    case ColumnUnit::kDiffRatio:
      return 4;
    default:
      return -1;
  }
}

// Whether the unit is a point in time (the UI sends it from the run's origin).
inline bool IsTimestamp(ColumnUnit unit) {
  return unit == ColumnUnit::kTimestamp || unit == ColumnUnit::kTimestampMicros;
}

// Whether files spell the unit as µs with 3 decimals (durations and times).
inline bool WrittenAsMicros(ColumnUnit unit) {
  return unit == ColumnUnit::kNanoseconds || unit == ColumnUnit::kNanosecondsInteger ||
         IsTimestamp(unit);
}

// One cell read from a row through its column's accessor.
struct CellValue {
  enum Kind : uint8_t { kNull, kInteger, kReal, kText } kind = kNull;
  int64_t integer = 0;
  double real = 0;
  std::string text;
};

// A cell of an integer value (the cluster's rows hold a result's values, not its rows).
inline CellValue IntegerCell(int64_t value) {
  CellValue cell;
  cell.kind = CellValue::kInteger;
  cell.integer = value;
  return cell;
}

template <typename Row>
struct Column {
  std::string_view header;   // summary file header: msprof's name ("Communication(Not ...)")
  std::string_view key;      // UI API key, and the database column unless `db_name` is set
  std::string_view db_name;  // the database column where msprof's table spells it otherwise
  ColumnUnit unit = ColumnUnit::kNanoseconds;
  uint8_t writers = kEveryWriter;
  // Exactly one accessor is set: an integer, a real or a text value.
  int64_t (*value)(const Row&) = nullptr;
  // A negative integer or an empty text means "not known": N/A in the files, NULL in the
  // tables and the UI.
  bool null_when_negative = false;
  double (*real)(const Row&) = nullptr;
  std::string (*text)(const Row&) = nullptr;

  bool IsNull(int64_t v) const { return null_when_negative && v < 0; }

  bool WrittenBy(ColumnWriter writer) const { return (writers & writer) != 0; }
  // Whether `writer` shows the column in a cluster's outputs: a kWithParallelLayout column
  // only where the layout is known.
  bool WrittenBy(ColumnWriter writer, bool layout_known) const {
    return WrittenBy(writer) && (layout_known || !WrittenBy(kWithParallelLayout));
  }
  std::string_view DatabaseName() const { return db_name.empty() ? key : db_name; }
  // The SQLite type of the column's values.
  std::string_view DatabaseType() const {
    if (text != nullptr) return "TEXT";
    return real != nullptr || HeldAsReal(unit) ? "REAL" : "INTEGER";
  }
  // The TypeScript type of the UI API's field: null where a value may be unknown, or (a
  // Diff Ratio) infinite.
  std::string UiType() const {
    std::string type = text != nullptr             ? "string"
                       : unit == ColumnUnit::kFlag ? "boolean"
                                                   : "number";
    return null_when_negative || unit == ColumnUnit::kDiffRatio ? type + " | null" : type;
  }

  CellValue Read(const Row& row) const {
    CellValue cell;
    if (text != nullptr) {
      cell.text = text(row);
      if (!null_when_negative || !cell.text.empty()) cell.kind = CellValue::kText;
    } else if (real != nullptr) {
      cell.kind = CellValue::kReal;
      cell.real = real(row);
    } else if (const int64_t v = value(row); !IsNull(v)) {
      cell.kind = CellValue::kInteger;
      cell.integer = v;
    }
    return cell;
  }
};

template <typename Row>
using Columns = std::span<const Column<Row>>;

// A text column; `null_when_empty`: an empty text means "not known".
template <typename Row>
constexpr Column<Row> TextColumn(std::string_view header, std::string_view key,
                                 std::string_view db_name, uint8_t writers,
                                 std::string (*text)(const Row&), bool null_when_empty = false) {
  return Column<Row>{header,          key,     db_name, ColumnUnit::kText, writers, nullptr,
                     null_when_empty, nullptr, text};
}

// A real-valued column (a share, a mean, MB): `unit` says how the writers spell it.
template <typename Row>
constexpr Column<Row> RealColumn(std::string_view header, std::string_view key,
                                 std::string_view db_name, ColumnUnit unit, uint8_t writers,
                                 double (*real)(const Row&)) {
  return Column<Row>{header, key, db_name, unit, writers, nullptr, false, real, nullptr};
}

// A duration column's value as msprof's tables hold it: µs.
inline double MicrosValue(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}
// msprof's communication times: ms.
inline double MillisValue(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// A cell's number in its unit's scale, not rounded (not for text, flags or null): µs or ms
// for msprof's durations and means, the value itself otherwise.
inline double ScaledValue(ColumnUnit unit, const CellValue& cell) {
  const double v = cell.kind == CellValue::kReal ? cell.real : static_cast<double>(cell.integer);
  switch (unit) {
    case ColumnUnit::kNanoseconds:
    case ColumnUnit::kTimestampMicros:
    case ColumnUnit::kMeanNanoseconds:
      return v / 1e3;
    case ColumnUnit::kMilliseconds:
      return v / 1e6;
    default:
      return v;
  }
}

// A cell's number as files and tables hold its unit (not for text, flags or null): µs or ms
// for msprof's durations, the share rounded for ratios, the value itself otherwise.
inline double RealValue(ColumnUnit unit, const CellValue& cell) {
  switch (unit) {
    case ColumnUnit::kRatio:
      return RoundedRatio(ScaledValue(unit, cell));
    case ColumnUnit::kPercent:
      return 100 * RoundedRatio(ScaledValue(unit, cell));
    default:
      return ScaledValue(unit, cell);
  }
}

// A cell's number as msprof-analyze's cluster tables hold it: ScaledValue rounded to the
// unit's ClusterDecimals.
inline double ClusterValue(ColumnUnit unit, const CellValue& cell) {
  const int decimals = ClusterDecimals(unit);
  return decimals < 0 ? ScaledValue(unit, cell) : RoundedTo(ScaledValue(unit, cell), decimals);
}

}  // namespace aiprof::analysis
