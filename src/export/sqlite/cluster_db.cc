#include "export/sqlite/cluster_db.h"

#include <filesystem>
#include <string_view>
#include <vector>

#include "export/cluster/cluster_files.h"
#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"

namespace aiprof::exporter {

namespace {

using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using analysis::cluster::DivergentStep;
using analysis::cluster::HostClock;
using analysis::cluster::kDivergentStepColumns;
using analysis::cluster::kHostClockColumns;
using analysis::cluster::kHostInfoColumns;
using analysis::cluster::kRankInfoColumns;
using analysis::cluster::kRankVerdictColumns;
using analysis::cluster::kSlowLinkColumns;
using analysis::cluster::kStageVerdictColumns;
using analysis::cluster::kStepVerdictColumns;
using analysis::cluster::RankInfo;
using analysis::cluster::RankSet;
using analysis::cluster::RankVerdict;
using analysis::cluster::SlowLink;
using analysis::cluster::StageVerdict;
using analysis::cluster::StepVerdict;

// A step number; NULL for operations outside every step.
Statement& Step(Statement& insert, int64_t step) {
  return step == analysis::cluster::kNoStep ? insert.Null() : insert.Int(step);
}

using analysis::MillisValue;

// msprof-analyze's table holds its file's columns (analysis::kStepTraceTimeColumns).
bool StepTraceTable(Database& db, const ClusterResult& result) {
  std::vector<std::string> columns = {"step INTEGER", "type TEXT", "\"index\" TEXT"};
  AppendColumnDefinitions<analysis::StepParts>(
      columns, analysis::kStepTraceTimeColumns,
      [](const auto& column) { return column.WrittenBy(analysis::kFiles); });
  columns.insert(columns.end(), {"dp_index INTEGER", "pp_index INTEGER", "tp_index INTEGER"});
  return db.Table("ClusterStepTraceTime", columns, [&](Statement& insert) {
    using Type = analysis::cluster::ClusterStepRow::Type;
    for (const analysis::cluster::ClusterStepRow& r : result.step_rows) {
      Step(insert, r.step).Text(r.type == Type::kRank ? "rank" : "stage").Text(r.index);
      for (size_t c = 0; c < analysis::kStepTraceTimeColumnCount; ++c) {
        const auto& column = analysis::kStepTraceTimeColumns[c];
        if (column.WrittenBy(analysis::kFiles))
          AppendTableCell(insert, column.unit, analysis::IntegerCell(r.times[c]));
      }
      for (int32_t index : {r.position.dp_index, r.position.pp_index, r.position.tp_index}) {
        if (index < 0) {
          insert.Null();  // a stage row, or an index the data does not tell
        } else {
          insert.Int(index);
        }
      }
      insert.Run();
    }
  });
}

// msprof-analyze's cluster tables of the per-rank communication results: their described
// columns (analysis::kClusterTables) between the keys and the size distribution.
bool CommunicationTables(Database& db, const ClusterResult& result) {
  using analysis::CommBandwidthInfo;
  using analysis::CommTimeInfo;
  std::vector<std::string> time_columns = {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT",
                                           "group_name TEXT"};
  AppendColumnDefinitions<CommTimeInfo>(time_columns, analysis::kCommTimeColumns,
                                        IsClusterTableColumn<CommTimeInfo>);
  std::vector<std::string> bandwidth_columns = {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT",
                                                "group_name TEXT", "band_type TEXT"};
  AppendColumnDefinitions<CommBandwidthInfo>(bandwidth_columns, analysis::kCommBandwidthColumns,
                                             IsClusterTableColumn<CommBandwidthInfo>);
  bandwidth_columns.insert(bandwidth_columns.end(),
                           {"package_size REAL", "count INTEGER", "total_duration REAL"});
  return db.Table("ClusterCommunicationTime", time_columns, [&](Statement& insert) {
    for (const CommOpTiming& op : result.comm_ops) {
      insert.Text(ClusterStepKey(op.step, op.loop, result.several_loops))
          .Int(op.rank)
          .Text(op.name)
          .Text(op.group);
      AppendClusterCells<CommTimeInfo>(insert, analysis::kCommTimeColumns, op.time,
                                       IsClusterTableColumn<CommTimeInfo>)
          .Run();
    }
  }) && db.Table("ClusterCommunicationBandwidth", bandwidth_columns, [&](Statement& insert) {
    for (const CommOpTiming& op : result.comm_ops) {
      const CommBandwidthInfo b = op.bandwidth();
      for (const auto& [bytes, entry] : b.size_distribution) {
        insert.Text(ClusterStepKey(op.step, op.loop, result.several_loops))
            .Int(op.rank)
            .Text(op.name)
            .Text(op.group)
            .Text(analysis::TransportTypeName(op.transport));
        AppendClusterCells<CommBandwidthInfo>(insert, analysis::kCommBandwidthColumns, b,
                                              IsClusterTableColumn<CommBandwidthInfo>);
        insert.Real(static_cast<double>(bytes) / 1e6)
            .Int(static_cast<int64_t>(entry.first))
            .Real(MillisValue(entry.second))
            .Run();
      }
    }
  });
}

bool MatrixTable(Database& db, const ClusterResult& result) {
  using analysis::CommMatrixEntry;
  std::vector<std::string> columns = {"step TEXT", "hccl_op_name TEXT", "group_name TEXT",
                                      "src_rank INTEGER", "dst_rank INTEGER"};
  AppendColumnDefinitions<CommMatrixEntry>(columns, analysis::kCommMatrixColumns,
                                           IsClusterTableColumn<CommMatrixEntry>);
  columns.push_back("op_name TEXT");
  return db.Table("ClusterCommunicationMatrix", columns, [&](Statement& insert) {
    for (const CommMatrixEntry& e : result.matrix) {
      insert.Text(ClusterStepKey(e.step, e.loop, result.several_loops))
          .Text(e.name)
          .Text(e.group)
          .Int(e.src_rank)
          .Int(e.dst_rank);
      AppendClusterCells<CommMatrixEntry>(insert, analysis::kCommMatrixColumns, e,
                                          IsClusterTableColumn<CommMatrixEntry>)
          .Text(model::CommOpTypeName(e.type))
          .Run();
    }
  });
}

// The database's columns of the cluster's own results: a kWithParallelLayout column only
// where the layout is known.
auto TableColumns(bool staged) {
  return [staged](const auto& column) { return column.WrittenBy(analysis::kDatabase, staged); };
}

// A table of a described result of the cluster's own: a row per element of `rows`.
template <typename Row>
bool DescribedTable(Database& db, const std::string& table, analysis::Columns<Row> columns,
                    const std::vector<Row>& rows, bool staged) {
  std::vector<std::string> definitions;
  AppendColumnDefinitions<Row>(definitions, columns, TableColumns(staged));
  return db.Table(table, definitions, [&](Statement& insert) {
    for (const Row& row : rows) {
      AppendClusterCells<Row>(insert, columns, row, TableColumns(staged)).Run();
    }
  });
}

bool InfoTables(Database& db, const ClusterResult& result) {
  const bool staged = result.layout.known;
  // A host's row is its first rank's (the hosts are numbered in that order).
  std::vector<RankInfo> hosts;
  for (const RankInfo& r : result.ranks) {
    if (r.host_uid == hosts.size()) hosts.push_back(r);
  }
  return db.Table(
             "CommunicationGroupMapping",
             {"type TEXT", "rank_set TEXT", "group_name TEXT", "group_id INTEGER", "pg_name TEXT"},
             [&](Statement& insert) {
               for (size_t i = 0; i < result.groups.size(); ++i) {
                 const analysis::CommGroup& group = result.groups[i];
                 insert.Text("collective").Text(RankSet(group.ranks)).Text(group.name);
                 insert.Int(static_cast<int64_t>(i)).Text(group.name).Run();
               }
             }) &&
         db.Table("ClusterBaseInfo", {"key TEXT", "value TEXT"},
                  [&](Statement& insert) {
                    // A row per described figure: its name and its value as text.
                    for (const analysis::Column<ClusterResult>& column :
                         analysis::cluster::kClusterBaseInfoColumns) {
                      if (!column.WrittenBy(analysis::kDatabase, staged)) continue;
                      const analysis::CellValue cell = column.Read(result);
                      insert.Text(column.DatabaseName());
                      insert.Text(cell.kind == analysis::CellValue::kText
                                      ? cell.text
                                      : std::to_string(cell.integer));
                      insert.Run();
                    }
                  }) &&
         DescribedTable<RankInfo>(db, "HostInfo", kHostInfoColumns, hosts, staged) &&
         DescribedTable<RankInfo>(db, "RankDeviceMap", kRankInfoColumns, result.ranks, staged);
}

// The ranks' and the stages' verdicts (slow_ranks.h): their own columns, then the means.
template <typename Verdict>
bool VerdictTable(Database& db, const std::string& table, analysis::Columns<Verdict> columns,
                  const std::vector<Verdict>& verdicts, bool staged) {
  std::vector<std::string> definitions;
  AppendColumnDefinitions<Verdict>(definitions, columns, TableColumns(staged));
  AppendColumnDefinitions<StepVerdict>(definitions, kStepVerdictColumns, TableColumns(staged));
  return db.Table(table, definitions, [&](Statement& insert) {
    for (const Verdict& v : verdicts) {
      AppendClusterCells<Verdict>(insert, columns, v, TableColumns(staged));
      AppendClusterCells<StepVerdict>(insert, kStepVerdictColumns, v, TableColumns(staged)).Run();
    }
  });
}

bool DiagnosisTables(Database& db, const ClusterResult& result) {
  const bool staged = result.layout.known;
  std::vector<std::string> divergent_columns = {"step INTEGER"};
  AppendColumnDefinitions<DivergentStep>(divergent_columns, kDivergentStepColumns,
                                         TableColumns(staged));
  return VerdictTable<RankVerdict>(db, "ClusterRankDiagnosis", kRankVerdictColumns, result.verdicts,
                                   staged) &&
         // Only with a known layout: a job without one keeps its tables as they were.
         (!staged || VerdictTable<StageVerdict>(db, "ClusterStageDiagnosis", kStageVerdictColumns,
                                                result.stage_verdicts, staged)) &&
         DescribedTable<SlowLink>(db, "ClusterSlowLink", kSlowLinkColumns, result.slow_links,
                                  staged) &&
         db.Table("ClusterDivergentStep", divergent_columns,
                  [&](Statement& insert) {
                    for (const DivergentStep& d : result.divergent_steps) {
                      AppendClusterCells<DivergentStep>(Step(insert, d.step), kDivergentStepColumns,
                                                        d, TableColumns(staged))
                          .Run();
                    }
                  }) &&
         DescribedTable<HostClock>(db, "ClusterHostClock", kHostClockColumns, result.clock.hosts,
                                   staged);
}

// --critical-path: the critical rank per step and why (cluster_critical_path.h); µs.
bool CriticalPathTable(Database& db, const ClusterResult& result) {
  using analysis::cluster::ClusterCriticalStep;
  std::vector<std::string> columns = {"step INTEGER", "loop INTEGER"};
  AppendColumnDefinitions<ClusterCriticalStep>(
      columns, analysis::cluster::kClusterCriticalStepColumns, IsTableColumn<ClusterCriticalStep>);
  return db.Table("ClusterCriticalPath", columns, [&](Statement& insert) {
    for (const ClusterCriticalStep& s : result.critical_steps) {
      Step(insert, s.step).Int(s.loop);
      AppendCells<ClusterCriticalStep>(insert, analysis::cluster::kClusterCriticalStepColumns, s,
                                       IsTableColumn<ClusterCriticalStep>)
          .Run();
    }
  });
}

}  // namespace

bool WriteClusterDb(const ClusterResult& result, unsigned outputs, const std::string& path,
                    std::string* error) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  Database db;
  const auto selected = [&](ClusterOutputs output) {
    return (outputs & static_cast<unsigned>(output)) != 0;
  };
  bool ok = db.Open(path) && db.Begin() &&
            (!selected(ClusterOutputs::kStepTrace) || StepTraceTable(db, result)) &&
            (!selected(ClusterOutputs::kCommunicationTime) || CommunicationTables(db, result)) &&
            (!selected(ClusterOutputs::kCommunicationMatrix) || MatrixTable(db, result)) &&
            InfoTables(db, result) && DiagnosisTables(db, result) &&
            (result.critical_steps.empty() || CriticalPathTable(db, result)) && db.Commit();
  if (!ok) {
    *error = "cannot write database '" + path + "': " + db.error();
    db.Close();
    std::filesystem::remove(path, ec);
  }
  return ok;
}

}  // namespace aiprof::exporter
