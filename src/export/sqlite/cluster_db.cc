#include "export/sqlite/cluster_db.h"

#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "export/cluster/cluster_files.h"
#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"

namespace aiprof::exporter {

namespace {

using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using analysis::cluster::RankSet;

// A step number; NULL for operations outside every step.
Statement& Step(Statement& insert, int64_t step) {
  return step == analysis::cluster::kNoStep ? insert.Null() : insert.Int(step);
}

using analysis::MillisValue;
using analysis::RoundedTo;

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
      AppendClusterCells<CommTimeInfo>(insert, analysis::kCommTimeColumns, op.time).Run();
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
        AppendClusterCells<CommBandwidthInfo>(insert, analysis::kCommBandwidthColumns, b);
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
      AppendClusterCells<CommMatrixEntry>(insert, analysis::kCommMatrixColumns, e)
          .Text(model::CommOpTypeName(e.type))
          .Run();
    }
  });
}

bool InfoTables(Database& db, const ClusterResult& result) {
  std::map<std::string, int64_t> host_ids;
  for (const analysis::cluster::RankInfo& r : result.ranks)
    host_ids.try_emplace(r.host, static_cast<int64_t>(host_ids.size()));
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
         db.Table(
             "ClusterBaseInfo", {"key TEXT", "value TEXT"},
             [&](Statement& insert) {
               insert.Text("ranks").Text(std::to_string(result.ranks.size())).Run();
               insert.Text("world_size").Text(std::to_string(result.world_size)).Run();
               insert.Text("dropped_records").Text(std::to_string(result.dropped_records)).Run();
               insert.Text("unmatched_communication_ops")
                   .Text(std::to_string(result.unmatched_ops))
                   .Run();
               insert.Text("clock_alignment").Text(result.clock.Describe()).Run();
               if (result.layout.known)
                 insert.Text("parallel_layout").Text(result.layout.Describe()).Run();
             }) &&
         db.Table("HostInfo", {"hostUid INTEGER", "hostName TEXT"},
                  [&](Statement& insert) {
                    // In order of first appearance by rank, as the ids were given.
                    std::vector<const std::string*> names(host_ids.size());
                    for (const auto& [name, id] : host_ids) names[static_cast<size_t>(id)] = &name;
                    for (size_t id = 0; id < names.size(); ++id)
                      insert.Int(static_cast<int64_t>(id)).Text(*names[id]).Run();
                  }) &&
         db.Table("RankDeviceMap",
                  {"rankId INTEGER", "deviceId INTEGER", "hostUid INTEGER", "profilePath TEXT"},
                  [&](Statement& insert) {
                    for (const analysis::cluster::RankInfo& r : result.ranks) {
                      insert.Int(r.rank).Int(r.device_id).Int(host_ids.at(r.host));
                      insert.Text(r.sources.empty() ? std::string_view("") : r.sources.front());
                      insert.Run();
                    }
                  });
}

bool DiagnosisTables(Database& db, const ClusterResult& result) {
  const std::vector<std::string> verdict_columns = {
      "steps INTEGER",     "own_time_ms REAL",
      "computing_ms REAL", "data_preparation_ms REAL",
      "free_ms REAL",      "communication_wait_ms REAL",
      "slow INTEGER",      "reason TEXT",
      "excess_ms REAL",    "reason_excess_ms REAL"};
  const auto verdict_row = [](Statement& insert, const analysis::cluster::StepVerdict& v) {
    insert.Int(static_cast<int64_t>(v.steps));
    insert.Real(RoundedTo(v.own_ns / 1e6, 6)).Real(RoundedTo(v.computing_ns / 1e6, 6));
    insert.Real(RoundedTo(v.preparing_ns / 1e6, 6)).Real(RoundedTo(v.free_ns / 1e6, 6));
    insert.Real(RoundedTo(v.communication_wait_ns / 1e6, 6)).Int(v.slow ? 1 : 0);
    insert.Text(v.reason).Real(RoundedTo(v.excess_ns / 1e6, 6));
    insert.Real(RoundedTo(v.reason_ns / 1e6, 6)).Run();
  };
  std::vector<std::string> rank_columns = {"rank_id INTEGER", "host TEXT"};
  rank_columns.insert(rank_columns.end(), verdict_columns.begin(), verdict_columns.end());
  std::vector<std::string> stage_columns = {"stage INTEGER", "ranks TEXT"};
  stage_columns.insert(stage_columns.end(), verdict_columns.begin(), verdict_columns.end());
  return db.Table("ClusterRankDiagnosis", rank_columns,
                  [&](Statement& insert) {
                    for (const analysis::cluster::RankVerdict& v : result.verdicts) {
                      insert.Int(v.rank).Text(v.host);
                      verdict_row(insert, v);
                    }
                  }) &&
         // Only with a known layout: a job without one keeps its tables as they were.
         (!result.layout.known || db.Table("ClusterStageDiagnosis", stage_columns,
                                           [&](Statement& insert) {
                                             for (const analysis::cluster::StageVerdict& v :
                                                  result.stage_verdicts) {
                                               insert.Int(v.stage).Text(RankSet(v.ranks));
                                               verdict_row(insert, v);
                                             }
                                           })) &&
         db.Table(
             "ClusterSlowLink",
             {"transport_type TEXT", "rank_id INTEGER", "bandwidth REAL", "median_bandwidth REAL"},
             [&](Statement& insert) {
               for (const analysis::cluster::SlowLink& l : result.slow_links) {
                 insert.Text(l.transport).Int(l.rank).Real(RoundedTo(l.bandwidth_gbps, 4));
                 insert.Real(RoundedTo(l.median_gbps, 4)).Run();
               }
             }) &&
         db.Table("ClusterDivergentStep",
                  {"step INTEGER", "slowest_rank INTEGER", "fastest_rank INTEGER",
                   "max_own_time_ms REAL", "min_own_time_ms REAL", "spread REAL"},
                  [&](Statement& insert) {
                    for (const analysis::cluster::DivergentStep& d : result.divergent_steps) {
                      Step(insert, d.step).Int(d.slowest_rank).Int(d.fastest_rank);
                      insert.Real(MillisValue(d.max_own_ns)).Real(MillisValue(d.min_own_ns));
                      insert.Real(RoundedTo(d.spread, 4)).Run();
                    }
                  }) &&
         db.Table(
             "ClusterHostClock",
             {"host TEXT", "ranks INTEGER", "offset_ms REAL", "uncertainty_ms REAL",
              "samples INTEGER"},
             [&](Statement& insert) {
               for (const analysis::cluster::HostClock& h : result.clock.hosts) {
                 insert.Text(h.host).Int(h.ranks).Real(MillisValue(h.offset_ns));
                 insert.Real(MillisValue(h.uncertainty_ns)).Int(static_cast<int64_t>(h.samples));
                 insert.Run();
               }
             });
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
