#include "export/sqlite/analysis_tables.h"

#include <filesystem>

#include "export/sqlite/column_sql.h"
#include "export/sqlite/communication_analysis_tables.h"
#include "export/sqlite/critical_path_tables.h"
#include "export/sqlite/database.h"
#include "export/sqlite/process_key.h"
#include "export/sqlite/resource_analysis_tables.h"

namespace aiprof::exporter {
namespace {

const char* const kAnalysisSchema = R"sql(
CREATE TABLE ENUM_OVERLAP_ANALYSIS_TYPE(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_OVERLAP_ANALYSIS_TYPE VALUES(0,'COMPUTE'),(1,'COMMUNICATION'),
  (2,'COMM_NOT_OVERLAP_COMP'),(3,'FREE');
CREATE TABLE OVERLAP_ANALYSIS(id INTEGER PRIMARY KEY, deviceId INTEGER, startNs INTEGER,
                              endNs INTEGER, type INTEGER, globalPid INTEGER);
)sql";
const char* const kInputsSchema = "CREATE TABLE ANALYSIS_INPUTS(name TEXT, value TEXT);";

// StepTraceTime: the step, msprof's step_trace_time columns, the step's place, then
// aiprof's further parts (analysis::kStepTraceTimeColumns).
bool IsMsprofColumn(const analysis::Column<analysis::StepParts>& column) {
  return column.WrittenBy(analysis::kFiles) && column.WrittenBy(analysis::kDatabase);
}
bool IsAiprofColumn(const analysis::Column<analysis::StepParts>& column) {
  return !column.WrittenBy(analysis::kFiles) && column.WrittenBy(analysis::kDatabase);
}

std::string StepTraceTimeSchema() {
  std::string sql = "CREATE TABLE StepTraceTime(deviceId INTEGER, step INTEGER";
  AppendColumnDefinitions<analysis::StepParts>(sql, analysis::kStepTraceTimeColumns,
                                               IsMsprofColumn);
  sql += ", startNs INTEGER, endNs INTEGER, rankId INTEGER, globalPid INTEGER, loop INTEGER";
  AppendColumnDefinitions<analysis::StepParts>(sql, analysis::kStepTraceTimeColumns,
                                               IsAiprofColumn);
  return sql + ")";
}

}  // namespace

bool WriteAnalysisTables(Database& database, const model::Model& m,
                         const analysis::AnalysisSet& set, std::string* error) {
  sqlite3* db = database.handle();
  RowSource& rows = database.rows();
  const std::string schema = kAnalysisSchema + StepTraceTimeSchema() + ";\n" + kInputsSchema;
  if (sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("analysis tables: ") + sqlite3_errmsg(db);
    return false;
  }
  const std::vector<analysis::OverlapScope>& scopes = set.overlap.scopes;
  size_t scope = 0;
  std::optional<analysis::LaneCursor> cursor;
  if (!scopes.empty()) cursor.emplace(scopes[0]);
  int64_t id = 0;
  bool ok = rows.InsertAll(
      db, "OVERLAP_ANALYSIS", 6,
      [&](Row& row) {
        analysis::OverlapLane lane;
        analysis::Interval i;
        while (cursor && !cursor->Next(&lane, &i)) {
          if (++scope == scopes.size()) return false;
          cursor.emplace(scopes[scope]);
        }
        if (!cursor) return false;
        row.Int(id++).Int(scopes[scope].device_id).Int(i.begin).Int(i.end);
        row.Int(static_cast<int64_t>(lane)).Int(GlobalPid(m, scopes[scope].process));
        return true;
      },
      error);
  const std::vector<analysis::StepBreakdownRow>& steps = set.step_breakdown.rows;
  bool has_steps = set.step_breakdown.step_source != analysis::StepSource::kNone;
  size_t next = 0;
  const analysis::Columns<analysis::StepParts> columns = analysis::kStepTraceTimeColumns;
  ok = ok && rows.InsertAll(
                 db, "StepTraceTime",
                 7 + CountColumns(columns, IsMsprofColumn) + CountColumns(columns, IsAiprofColumn),
                 [&](Row& row) {
                   if (next == steps.size()) return false;
                   const analysis::StepBreakdownRow& r = steps[next++];
                   row.Int(r.device_id);
                   if (has_steps) {
                     row.Int(static_cast<int64_t>(r.step));
                   } else {
                     row.Null();
                   }
                   AppendCells(row, columns, r, IsMsprofColumn);
                   row.Int(r.begin_ns).Int(r.end_ns).Int(r.rank);
                   row.Int(GlobalPid(m, scopes[r.scope].process));
                   if (has_steps) {
                     row.Int(r.loop);
                   } else {
                     row.Null();
                   }
                   AppendCells(row, columns, r, IsAiprofColumn);
                   return true;
                 },
                 error);
  if (!ok) return false;
  // A name/value row per described column, the value as text (empty when not known).
  std::vector<std::pair<std::string_view, std::string>> values;
  for (const auto& column : analysis::kAnalysisInputsColumns) {
    if (!column.WrittenBy(analysis::kDatabase)) continue;
    const analysis::CellValue cell = column.Read(set.inputs);
    values.emplace_back(column.key, cell.kind == analysis::CellValue::kInteger
                                        ? std::to_string(cell.integer)
                                        : cell.text);
  }
  size_t value = 0;
  return rows.InsertAll(
             db, "ANALYSIS_INPUTS", 2,
             [&](Row& row) {
               if (value == values.size()) return false;
               row.Text(values[value].first).Text(values[value].second);
               ++value;
               return true;
             },
             error) &&
         WriteResourceAnalysisTables(database, m, set, error) &&
         WriteCommunicationTables(database, set.communication_analysis, error) &&
         WriteCriticalPathTables(database, m, set, error);
}

bool WriteAnalysisDb(const model::Model& model, const analysis::AnalysisSet& set,
                     const std::string& path, std::string* error) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::string detail;
  bool ok;
  {
    Database db;
    ok = db.Open(path) && db.Begin() && WriteAnalysisTables(db, model, set, &detail) && db.Commit();
    if (detail.empty()) detail = db.error();
  }
  if (!ok) {
    *error = "cannot write database '" + path + "': " + detail;
    std::filesystem::remove(path, ec);
  }
  return ok;
}

}  // namespace aiprof::exporter
