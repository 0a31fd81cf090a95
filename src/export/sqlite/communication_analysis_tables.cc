#include "export/sqlite/communication_analysis_tables.h"

#include <unordered_map>

#include "export/analysis/communication_files.h"
#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"

namespace aiprof::exporter {
namespace {

using analysis::CommBandwidthInfo;
using analysis::CommKind;
using analysis::CommMatrixEntry;
using analysis::CommOpTiming;
using analysis::CommTimeInfo;

// msprof's three CommAnalyzer tables: the operation's keys, its described columns, the rest.
std::string TablesSql() {
  using analysis::CommBandwidthInfo;
  std::string sql =
      "DROP TABLE IF EXISTS CommAnalyzerTime;\n"
      "DROP TABLE IF EXISTS CommAnalyzerBandwidth;\n"
      "DROP TABLE IF EXISTS CommAnalyzerMatrix;\n"
      "CREATE TABLE CommAnalyzerTime(hccl_op_name TEXT, group_name TEXT";
  AppendColumnDefinitions<CommTimeInfo>(sql, analysis::kCommTimeColumns,
                                        IsTableColumn<CommTimeInfo>);
  sql +=
      ", step TEXT, type TEXT, rank_id INTEGER, wait_source TEXT);\n"
      "CREATE TABLE CommAnalyzerBandwidth(hccl_op_name TEXT, group_name TEXT, "
      "transport_type TEXT";
  AppendColumnDefinitions<CommBandwidthInfo>(sql, analysis::kCommBandwidthColumns,
                                             IsTableColumn<CommBandwidthInfo>);
  sql +=
      ", package_size REAL, count INTEGER, total_duration REAL, step TEXT, type TEXT, "
      "rank_id INTEGER);\n"
      "CREATE TABLE CommAnalyzerMatrix(hccl_op_name TEXT, group_name TEXT, src_rank INTEGER, "
      "dst_rank INTEGER";
  AppendColumnDefinitions<CommMatrixEntry>(sql, analysis::kCommMatrixColumns,
                                           IsTableColumn<CommMatrixEntry>);
  return sql + ", step TEXT, type TEXT, op_name TEXT, rank_id INTEGER);\n";
}

std::string TableType(CommKind kind) {
  return kind == CommKind::kP2p ? "P2P" : "Collective";
}

}  // namespace

bool WriteCommunicationTables(Database& database, const analysis::CommunicationAnalysis& a,
                              std::string* error) {
  sqlite3* db = database.handle();
  if (sqlite3_exec(db, TablesSql().c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("communication tables: ") + sqlite3_errmsg(db);
    return false;
  }
  Statement time(db, "INSERT INTO CommAnalyzerTime VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  Statement bandwidth(db, "INSERT INTO CommAnalyzerBandwidth VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
  Statement matrix(db, "INSERT INTO CommAnalyzerMatrix VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  bool ok = time.ok() && bandwidth.ok() && matrix.ok();
  for (size_t i = 0; ok && i < a.ops.size(); ++i) {
    const CommOpTiming& op = a.ops[i];
    AppendCells<CommTimeInfo>(time.Text(op.name).Text(op.group), analysis::kCommTimeColumns,
                              op.time, IsTableColumn<CommTimeInfo>);
    ok = time.Text(CommunicationStepKey(op, a.several_loops))
             .Text(TableType(op.kind))
             .Int(op.rank)
             .Text(WaitSourceText(op, a))
             .Run();
    const CommBandwidthInfo info = op.bandwidth();
    for (const auto& [bytes, entry] : info.size_distribution) {
      bandwidth.Text(op.name).Text(op.group).Text(analysis::TransportTypeName(op.transport));
      AppendCells<CommBandwidthInfo>(bandwidth, analysis::kCommBandwidthColumns, info,
                                     IsTableColumn<CommBandwidthInfo>);
      ok = ok && bandwidth.Real(static_cast<double>(bytes) / 1e6)
                     .Int(static_cast<int64_t>(entry.first))
                     .Real(analysis::MillisValue(entry.second))
                     .Text(CommunicationStepKey(op, a.several_loops))
                     .Text(TableType(op.kind))
                     .Int(op.rank)
                     .Run();
    }
  }
  std::unordered_map<std::string, int32_t> rank_of_op;
  for (const CommOpTiming& op : a.ops) rank_of_op[op.key()] = op.rank;
  for (size_t i = 0; ok && i < a.matrix.size(); ++i) {
    const CommMatrixEntry& e = a.matrix[i];
    matrix.Text(e.name).Text(e.group).Int(e.src_rank).Int(e.dst_rank);
    AppendCells<CommMatrixEntry>(matrix, analysis::kCommMatrixColumns, e,
                                 IsTableColumn<CommMatrixEntry>);
    ok = matrix.Text(CommunicationStepKey(e, a.several_loops))
             .Text(TableType(e.kind))
             .Text(e.name)
             .Int(rank_of_op[e.name + "@" + e.group])
             .Run();
  }
  if (!ok) *error = std::string("communication tables: ") + sqlite3_errmsg(db);
  return ok;
}

bool WriteCommunicationTables(const std::string& path,
                              const analysis::CommunicationAnalysis& analysis, std::string* error) {
  Database db;
  const bool ok = db.Open(path, Database::Mode::kUpdate) && db.Begin() &&
                  WriteCommunicationTables(db, analysis, error) && db.Commit();
  if (!ok && error->empty()) *error = db.error();
  return ok;
}

}  // namespace aiprof::exporter
