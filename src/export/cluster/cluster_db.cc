#include "export/cluster/cluster_db.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "export/cluster/cluster_files.h"

namespace aiprof::exporter {

namespace {

using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using analysis::cluster::RankSet;

// One table's prepared INSERT, bound column by column straight from the result: no row
// objects in between (a 1,024-rank job has a million rows).
class Insert {
 public:
  explicit Insert(sqlite3_stmt* stmt) : stmt_(stmt) {}

  Insert& Int(int64_t value) {
    sqlite3_bind_int64(stmt_, ++column_, value);
    return *this;
  }
  Insert& Real(double value) {
    sqlite3_bind_double(stmt_, ++column_, value);
    return *this;
  }
  Insert& Text(std::string_view value) {
    sqlite3_bind_text(stmt_, ++column_, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }
  Insert& Null() {
    sqlite3_bind_null(stmt_, ++column_);
    return *this;
  }
  // A step number; NULL for operations outside every step.
  Insert& Step(int64_t step) { return step == analysis::cluster::kNoStep ? Null() : Int(step); }

  // Inserts the bound row; after a failure the remaining rows are skipped.
  void Row() {
    if (ok_ && sqlite3_step(stmt_) != SQLITE_DONE) ok_ = false;
    sqlite3_reset(stmt_);
    column_ = 0;
  }
  bool ok() const { return ok_; }

 private:
  sqlite3_stmt* stmt_;
  int column_ = 0;
  bool ok_ = true;
};

class Database {
 public:
  explicit Database(sqlite3* db) : db_(db) {}

  bool Exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK) return true;
    error_ = sqlite3_errmsg(db_);
    return false;
  }

  // Creates `table` with `columns` ("name TYPE") and fills it: `fill(Insert&)` binds and
  // inserts the rows.
  template <typename Fill>
  bool Table(const std::string& table, const std::vector<std::string>& columns, Fill fill) {
    std::string create = "CREATE TABLE " + table + " (",
                insert = "INSERT INTO " + table + " VALUES (";
    for (size_t i = 0; i < columns.size(); ++i) {
      create += (i ? ", " : "") + columns[i];
      insert += i ? ", ?" : "?";
    }
    if (!Exec(create + ")")) return false;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, (insert + ")").c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return false;
    }
    Insert rows(stmt);
    fill(rows);
    if (!rows.ok()) error_ = sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return rows.ok();
  }

  const std::string& error() const { return error_; }

 private:
  sqlite3* db_;
  std::string error_;
};

double Round(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}
double Us(int64_t ns) {
  return Round(static_cast<double>(ns) / 1e3, 3);
}
double Ms(int64_t ns) {
  return Round(static_cast<double>(ns) / 1e6, 6);
}

bool StepTraceTable(Database& db, const ClusterResult& result) {
  return db.Table(
      "ClusterStepTraceTime",
      {"step INTEGER", "type TEXT", "\"index\" TEXT", "computing REAL",
       "communication_not_overlapped REAL", "overlapped REAL", "communication REAL", "free REAL",
       "stage REAL", "bubble REAL", "communication_not_overlapped_and_exclude_receive REAL",
       "preparing REAL", "dp_index INTEGER", "pp_index INTEGER", "tp_index INTEGER"},
      [&](Insert& insert) {
        using Type = analysis::cluster::ClusterStepRow::Type;
        for (const analysis::cluster::ClusterStepRow& r : result.step_rows) {
          insert.Step(r.step).Text(r.type == Type::kRank ? "rank" : "stage").Text(r.index);
          insert.Real(Us(r.computing_ns)).Real(Us(r.communication_not_overlapped_ns));
          insert.Real(Us(r.overlapped_ns)).Real(Us(r.communication_ns)).Real(Us(r.free_ns));
          insert.Real(Us(r.stage_ns)).Real(Us(r.bubble_ns));
          insert.Real(Us(r.communication_not_overlapped_exclude_receive_ns));
          insert.Real(Us(r.preparing_ns));
          for (int32_t index : {r.position.dp_index, r.position.pp_index, r.position.tp_index}) {
            if (index < 0) {
              insert.Null();  // a stage row, or an index the data does not tell
            } else {
              insert.Int(index);
            }
          }
          insert.Row();
        }
      });
}

bool CommunicationTables(Database& db, const ClusterResult& result) {
  return db.Table("ClusterCommunicationTime",
                  {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT", "group_name TEXT",
                   "start_timestamp REAL", "elapsed_time REAL", "transit_time REAL",
                   "wait_time REAL", "synchronization_time REAL", "idle_time REAL",
                   "synchronization_time_ratio REAL", "wait_time_ratio REAL"},
                  [&](Insert& insert) {
                    for (const CommOpTiming& op : result.comm_ops) {
                      const analysis::CommTimeInfo& t = op.time;
                      insert.Text(ClusterStepKey(op.step, op.loop, result.several_loops))
                          .Int(op.rank)
                          .Text(op.name);
                      insert.Text(op.group).Real(Us(t.start_ns)).Real(Ms(t.elapse_ns));
                      insert.Real(Ms(t.transit_ns)).Real(Ms(t.wait_ns));
                      insert.Real(Ms(t.synchronization_ns)).Real(Ms(t.idle_ns));
                      insert.Real(Round(t.synchronization_ratio(), 4));
                      insert.Real(Round(t.wait_ratio(), 4)).Row();
                    }
                  }) &&
         db.Table("ClusterCommunicationBandwidth",
                  {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT", "group_name TEXT",
                   "band_type TEXT", "transit_size REAL", "transit_time REAL", "bandwidth REAL",
                   "large_packet_ratio REAL", "package_size REAL", "count INTEGER",
                   "total_duration REAL"},
                  [&](Insert& insert) {
                    for (const CommOpTiming& op : result.comm_ops) {
                      const analysis::CommBandwidthInfo b = op.bandwidth();
                      for (const auto& [bytes, entry] : b.size_distribution) {
                        insert.Text(ClusterStepKey(op.step, op.loop, result.several_loops))
                            .Int(op.rank)
                            .Text(op.name);
                        insert.Text(op.group).Text(analysis::TransportTypeName(op.transport));
                        insert.Real(Round(b.size_mb(), 6)).Real(Ms(b.transit_ns));
                        insert.Real(Round(b.bandwidth_gbps(), 4));
                        insert.Real(Round(b.large_packet_ratio(), 4));
                        insert.Real(Round(static_cast<double>(bytes) / 1e6, 6));
                        insert.Int(static_cast<int64_t>(entry.first)).Real(Ms(entry.second));
                        insert.Row();
                      }
                    }
                  });
}

bool MatrixTable(Database& db, const ClusterResult& result) {
  return db.Table("ClusterCommunicationMatrix",
                  {"step TEXT", "hccl_op_name TEXT", "group_name TEXT", "src_rank INTEGER",
                   "dst_rank INTEGER", "transit_size REAL", "transit_time REAL", "bandwidth REAL",
                   "transport_type TEXT", "op_name TEXT"},
                  [&](Insert& insert) {
                    for (const analysis::CommMatrixEntry& e : result.matrix) {
                      insert.Text(ClusterStepKey(e.step, e.loop, result.several_loops))
                          .Text(e.name)
                          .Text(e.group);
                      insert.Int(e.src_rank).Int(e.dst_rank);
                      insert.Real(Round(static_cast<double>(e.bytes) / 1e6, 6));
                      insert.Real(Ms(e.transit_ns)).Real(Round(e.bandwidth_gbps(), 4));
                      insert.Text(analysis::TransportTypeName(e.transport));
                      insert.Text(model::CommOpTypeName(e.type)).Row();
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
             [&](Insert& insert) {
               for (size_t i = 0; i < result.groups.size(); ++i) {
                 const analysis::CommGroup& group = result.groups[i];
                 insert.Text("collective").Text(RankSet(group.ranks)).Text(group.name);
                 insert.Int(static_cast<int64_t>(i)).Text(group.name).Row();
               }
             }) &&
         db.Table(
             "ClusterBaseInfo", {"key TEXT", "value TEXT"},
             [&](Insert& insert) {
               insert.Text("ranks").Text(std::to_string(result.ranks.size())).Row();
               insert.Text("world_size").Text(std::to_string(result.world_size)).Row();
               insert.Text("dropped_records").Text(std::to_string(result.dropped_records)).Row();
               insert.Text("unmatched_communication_ops")
                   .Text(std::to_string(result.unmatched_ops))
                   .Row();
               insert.Text("clock_alignment").Text(result.clock.Describe()).Row();
               if (result.layout.known)
                 insert.Text("parallel_layout").Text(result.layout.Describe()).Row();
             }) &&
         db.Table("HostInfo", {"hostUid INTEGER", "hostName TEXT"},
                  [&](Insert& insert) {
                    // In order of first appearance by rank, as the ids were given.
                    std::vector<const std::string*> names(host_ids.size());
                    for (const auto& [name, id] : host_ids) names[static_cast<size_t>(id)] = &name;
                    for (size_t id = 0; id < names.size(); ++id)
                      insert.Int(static_cast<int64_t>(id)).Text(*names[id]).Row();
                  }) &&
         db.Table("RankDeviceMap",
                  {"rankId INTEGER", "deviceId INTEGER", "hostUid INTEGER", "profilePath TEXT"},
                  [&](Insert& insert) {
                    for (const analysis::cluster::RankInfo& r : result.ranks) {
                      insert.Int(r.rank).Int(r.device_id).Int(host_ids.at(r.host));
                      insert.Text(r.sources.empty() ? std::string_view("") : r.sources.front());
                      insert.Row();
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
  const auto verdict_row = [](Insert& insert, const analysis::cluster::StepVerdict& v) {
    insert.Int(static_cast<int64_t>(v.steps));
    insert.Real(Round(v.own_ns / 1e6, 6)).Real(Round(v.computing_ns / 1e6, 6));
    insert.Real(Round(v.preparing_ns / 1e6, 6)).Real(Round(v.free_ns / 1e6, 6));
    insert.Real(Round(v.communication_wait_ns / 1e6, 6)).Int(v.slow ? 1 : 0);
    insert.Text(v.reason).Real(Round(v.excess_ns / 1e6, 6));
    insert.Real(Round(v.reason_ns / 1e6, 6)).Row();
  };
  std::vector<std::string> rank_columns = {"rank_id INTEGER", "host TEXT"};
  rank_columns.insert(rank_columns.end(), verdict_columns.begin(), verdict_columns.end());
  std::vector<std::string> stage_columns = {"stage INTEGER", "ranks TEXT"};
  stage_columns.insert(stage_columns.end(), verdict_columns.begin(), verdict_columns.end());
  return db.Table("ClusterRankDiagnosis", rank_columns,
                  [&](Insert& insert) {
                    for (const analysis::cluster::RankVerdict& v : result.verdicts) {
                      insert.Int(v.rank).Text(v.host);
                      verdict_row(insert, v);
                    }
                  }) &&
         // Only with a known layout: a job without one keeps its tables as they were.
         (!result.layout.known || db.Table("ClusterStageDiagnosis", stage_columns,
                                           [&](Insert& insert) {
                                             for (const analysis::cluster::StageVerdict& v :
                                                  result.stage_verdicts) {
                                               insert.Int(v.stage).Text(RankSet(v.ranks));
                                               verdict_row(insert, v);
                                             }
                                           })) &&
         db.Table(
             "ClusterSlowLink",
             {"transport_type TEXT", "rank_id INTEGER", "bandwidth REAL", "median_bandwidth REAL"},
             [&](Insert& insert) {
               for (const analysis::cluster::SlowLink& l : result.slow_links) {
                 insert.Text(l.transport).Int(l.rank).Real(Round(l.bandwidth_gbps, 4));
                 insert.Real(Round(l.median_gbps, 4)).Row();
               }
             }) &&
         db.Table("ClusterDivergentStep",
                  {"step INTEGER", "slowest_rank INTEGER", "fastest_rank INTEGER",
                   "max_own_time_ms REAL", "min_own_time_ms REAL", "spread REAL"},
                  [&](Insert& insert) {
                    for (const analysis::cluster::DivergentStep& d : result.divergent_steps) {
                      insert.Step(d.step).Int(d.slowest_rank).Int(d.fastest_rank);
                      insert.Real(Ms(d.max_own_ns)).Real(Ms(d.min_own_ns));
                      insert.Real(Round(d.spread, 4)).Row();
                    }
                  }) &&
         db.Table("ClusterHostClock",
                  {"host TEXT", "ranks INTEGER", "offset_ms REAL", "uncertainty_ms REAL",
                   "samples INTEGER"},
                  [&](Insert& insert) {
                    for (const analysis::cluster::HostClock& h : result.clock.hosts) {
                      insert.Text(h.host).Int(h.ranks).Real(Ms(h.offset_ns));
                      insert.Real(Ms(h.uncertainty_ns)).Int(static_cast<int64_t>(h.samples));
                      insert.Row();
                    }
                  });
}

// --critical-path: the critical rank per step and why (cluster_critical_path.h); µs.
bool CriticalPathTable(Database& db, const ClusterResult& result) {
  std::vector<std::string> columns = {"step INTEGER",
                                      "loop INTEGER",
                                      "ranks INTEGER",
                                      "step_time REAL",
                                      "critical_rank INTEGER",
                                      "on_path REAL",
                                      "gated_operations INTEGER",
                                      "gate TEXT",
                                      "peers_wait REAL",
                                      "last_rank INTEGER"};
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    columns.push_back(
        "own_" + std::string(analysis::PathCategoryKey(static_cast<analysis::PathCategory>(c))) +
        " REAL");
  }
  return db.Table("ClusterCriticalPath", columns, [&](Insert& insert) {
    for (const analysis::cluster::ClusterCriticalStep& s : result.critical_steps) {
      insert.Step(s.step).Int(s.loop).Int(s.ranks).Real(Us(s.duration_ns()));
      insert.Int(s.critical_rank).Real(Us(s.on_path_ns)).Int(s.gated_operations);
      insert.Text(std::string(analysis::PathCategoryName(s.gate))).Real(Us(s.peers_wait_ns));
      insert.Int(s.last_rank);
      for (int64_t ns : s.critical_own.ns) insert.Real(Us(ns));
      insert.Row();
    }
  });
}

}  // namespace

bool WriteClusterDb(const ClusterResult& result, unsigned outputs, const std::string& path,
                    std::string* error) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  sqlite3* handle = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &handle, flags, nullptr) != SQLITE_OK) {
    *error = "cannot write database '" + path +
             "': " + (handle ? sqlite3_errmsg(handle) : "out of memory");
    sqlite3_close(handle);
    return false;
  }
  Database db(handle);
  const auto selected = [&](ClusterOutputs output) {
    return (outputs & static_cast<unsigned>(output)) != 0;
  };
  bool ok = db.Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN") &&
            (!selected(ClusterOutputs::kStepTrace) || StepTraceTable(db, result)) &&
            (!selected(ClusterOutputs::kCommunicationTime) || CommunicationTables(db, result)) &&
            (!selected(ClusterOutputs::kCommunicationMatrix) || MatrixTable(db, result)) &&
            InfoTables(db, result) && DiagnosisTables(db, result) &&
            (result.critical_steps.empty() || CriticalPathTable(db, result)) && db.Exec("COMMIT");
  if (!ok) *error = "cannot write database '" + path + "': " + db.error();
  sqlite3_close(handle);
  if (!ok) std::filesystem::remove(path, ec);
  return ok;
}

}  // namespace aiprof::exporter
