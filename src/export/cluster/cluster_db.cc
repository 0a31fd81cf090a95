#include "export/cluster/cluster_db.h"

#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <variant>
#include <vector>

#include "export/cluster/cluster_files.h"

namespace aiprof::exporter {

namespace {

using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using Value = std::variant<std::monostate, int64_t, double, std::string>;

class Database {
 public:
  explicit Database(sqlite3* db) : db_(db) {}

  bool Exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK) return true;
    error_ = sqlite3_errmsg(db_);
    return false;
  }

  // Creates `table` with `columns` ("name TYPE") and fills it with `rows`.
  bool Table(const std::string& table, const std::vector<std::string>& columns,
             const std::vector<std::vector<Value>>& rows) {
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
    bool ok = true;
    for (const std::vector<Value>& row : rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        const int column = static_cast<int>(i) + 1;
        if (const auto* v = std::get_if<int64_t>(&row[i])) {
          sqlite3_bind_int64(stmt, column, *v);
        } else if (const auto* d = std::get_if<double>(&row[i])) {
          sqlite3_bind_double(stmt, column, *d);
        } else if (const auto* s = std::get_if<std::string>(&row[i])) {
          sqlite3_bind_text(stmt, column, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
        } else {
          sqlite3_bind_null(stmt, column);
        }
      }
      if (sqlite3_step(stmt) != SQLITE_DONE) {
        error_ = sqlite3_errmsg(db_);
        ok = false;
        break;
      }
      sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
    return ok;
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
Value Step(int64_t step) {
  return step == analysis::cluster::kNoStep ? Value{} : Value{step};
}

bool StepTraceTable(Database& db, const ClusterResult& result) {
  std::vector<std::vector<Value>> rows;
  for (const analysis::cluster::ClusterStepRow& r : result.step_rows) {
    rows.push_back(
        {Step(r.step),
         std::string(r.type == analysis::cluster::ClusterStepRow::Type::kRank ? "rank" : "stage"),
         r.index, Us(r.computing_ns), Us(r.communication_not_overlapped_ns), Us(r.overlapped_ns),
         Us(r.communication_ns), Us(r.free_ns), Us(r.stage_ns), Us(r.bubble_ns),
         Us(r.communication_not_overlapped_exclude_receive_ns), Us(r.preparing_ns), Value{},
         Value{}, Value{}});
  }
  return db.Table(
      "ClusterStepTraceTime",
      {"step INTEGER", "type TEXT", "\"index\" TEXT", "computing REAL",
       "communication_not_overlapped REAL", "overlapped REAL", "communication REAL", "free REAL",
       "stage REAL", "bubble REAL", "communication_not_overlapped_and_exclude_receive REAL",
       "preparing REAL", "dp_index INTEGER", "pp_index INTEGER", "tp_index INTEGER"},
      rows);
}

bool CommunicationTables(Database& db, const ClusterResult& result) {
  std::vector<std::vector<Value>> time, bandwidth;
  for (const CommOpTiming& op : result.comm_ops) {
    const analysis::CommTimeInfo& t = op.time;
    time.push_back({ClusterStepKey(op.step), int64_t{op.rank}, op.name, op.group, Us(t.start_ns),
                    Ms(t.elapse_ns), Ms(t.transit_ns), Ms(t.wait_ns), Ms(t.synchronization_ns),
                    Ms(t.idle_ns), Round(t.synchronization_ratio(), 4), Round(t.wait_ratio(), 4)});
    const analysis::CommBandwidthInfo b = op.bandwidth();
    for (const auto& [bytes, entry] : b.size_distribution) {
      bandwidth.push_back({ClusterStepKey(op.step), int64_t{op.rank}, op.name, op.group,
                           std::string(analysis::TransportTypeName(op.transport)),
                           Round(b.size_mb(), 6), Ms(b.transit_ns), Round(b.bandwidth_gbps(), 4),
                           Round(b.large_packet_ratio(), 4),
                           Round(static_cast<double>(bytes) / 1e6, 6),
                           static_cast<int64_t>(entry.first), Ms(entry.second)});
    }
  }
  return db.Table("ClusterCommunicationTime",
                  {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT", "group_name TEXT",
                   "start_timestamp REAL", "elapsed_time REAL", "transit_time REAL",
                   "wait_time REAL", "synchronization_time REAL", "idle_time REAL",
                   "synchronization_time_ratio REAL", "wait_time_ratio REAL"},
                  time) &&
         db.Table("ClusterCommunicationBandwidth",
                  {"step TEXT", "rank_id INTEGER", "hccl_op_name TEXT", "group_name TEXT",
                   "band_type TEXT", "transit_size REAL", "transit_time REAL", "bandwidth REAL",
                   "large_packet_ratio REAL", "package_size REAL", "count INTEGER",
                   "total_duration REAL"},
                  bandwidth);
}

bool MatrixTable(Database& db, const ClusterResult& result) {
  std::vector<std::vector<Value>> rows;
  for (const analysis::CommMatrixEntry& e : result.matrix) {
    rows.push_back({ClusterStepKey(e.step), e.name, e.group, int64_t{e.src_rank},
                    int64_t{e.dst_rank}, Round(static_cast<double>(e.bytes) / 1e6, 6),
                    Ms(e.transit_ns), Round(e.bandwidth_gbps(), 4),
                    std::string(analysis::TransportTypeName(e.transport)),
                    std::string(model::CommOpTypeName(e.type))});
  }
  return db.Table("ClusterCommunicationMatrix",
                  {"step TEXT", "hccl_op_name TEXT", "group_name TEXT", "src_rank INTEGER",
                   "dst_rank INTEGER", "transit_size REAL", "transit_time REAL", "bandwidth REAL",
                   "transport_type TEXT", "op_name TEXT"},
                  rows);
}

bool InfoTables(Database& db, const ClusterResult& result) {
  std::vector<std::vector<Value>> groups, base, hosts, ranks;
  for (size_t i = 0; i < result.groups.size(); ++i) {
    std::string rank_set = "(";
    for (size_t j = 0; j < result.groups[i].ranks.size(); ++j)
      rank_set += (j ? ", " : "") + std::to_string(result.groups[i].ranks[j]);
    groups.push_back({std::string("collective"), rank_set + ")", result.groups[i].name,
                      static_cast<int64_t>(i), result.groups[i].name});
  }
  base.push_back({std::string("ranks"), std::to_string(result.ranks.size())});
  base.push_back({std::string("world_size"), std::to_string(result.world_size)});
  base.push_back({std::string("dropped_records"), std::to_string(result.dropped_records)});
  base.push_back(
      {std::string("unmatched_communication_ops"), std::to_string(result.unmatched_ops)});
  base.push_back({std::string("clock_alignment"), result.clock.Describe()});
  std::map<std::string, int64_t> host_ids;
  for (const analysis::cluster::RankInfo& r : result.ranks) {
    const auto [it, added] = host_ids.try_emplace(r.host, static_cast<int64_t>(host_ids.size()));
    if (added) hosts.push_back({it->second, r.host});
    ranks.push_back({int64_t{r.rank}, int64_t{r.device_id}, it->second,
                     r.sources.empty() ? std::string() : r.sources.front()});
  }
  return db.Table(
             "CommunicationGroupMapping",
             {"type TEXT", "rank_set TEXT", "group_name TEXT", "group_id INTEGER", "pg_name TEXT"},
             groups) &&
         db.Table("ClusterBaseInfo", {"key TEXT", "value TEXT"}, base) &&
         db.Table("HostInfo", {"hostUid INTEGER", "hostName TEXT"}, hosts) &&
         db.Table("RankDeviceMap",
                  {"rankId INTEGER", "deviceId INTEGER", "hostUid INTEGER", "profilePath TEXT"},
                  ranks);
}

bool DiagnosisTables(Database& db, const ClusterResult& result) {
  std::vector<std::vector<Value>> verdicts, links, steps, clocks;
  for (const analysis::cluster::RankVerdict& v : result.verdicts) {
    verdicts.push_back({int64_t{v.rank}, v.host, static_cast<int64_t>(v.steps),
                        Round(v.own_ns / 1e6, 6), Round(v.computing_ns / 1e6, 6),
                        Round(v.preparing_ns / 1e6, 6), Round(v.free_ns / 1e6, 6),
                        Round(v.communication_wait_ns / 1e6, 6), int64_t{v.slow ? 1 : 0}, v.reason,
                        Round(v.excess_ns / 1e6, 6), Round(v.reason_ns / 1e6, 6)});
  }
  for (const analysis::cluster::SlowLink& l : result.slow_links) {
    links.push_back(
        {l.transport, int64_t{l.rank}, Round(l.bandwidth_gbps, 4), Round(l.median_gbps, 4)});
  }
  for (const analysis::cluster::DivergentStep& d : result.divergent_steps) {
    steps.push_back({Step(d.step), int64_t{d.slowest_rank}, int64_t{d.fastest_rank},
                     Ms(d.max_own_ns), Ms(d.min_own_ns), Round(d.spread, 4)});
  }
  for (const analysis::cluster::HostClock& h : result.clock.hosts) {
    clocks.push_back({h.host, int64_t{h.ranks}, Ms(h.offset_ns), Ms(h.uncertainty_ns),
                      static_cast<int64_t>(h.samples)});
  }
  return db.Table("ClusterRankDiagnosis",
                  {"rank_id INTEGER", "host TEXT", "steps INTEGER", "own_time_ms REAL",
                   "computing_ms REAL", "data_preparation_ms REAL", "free_ms REAL",
                   "communication_wait_ms REAL", "slow INTEGER", "reason TEXT", "excess_ms REAL",
                   "reason_excess_ms REAL"},
                  verdicts) &&
         db.Table(
             "ClusterSlowLink",
             {"transport_type TEXT", "rank_id INTEGER", "bandwidth REAL", "median_bandwidth REAL"},
             links) &&
         db.Table("ClusterDivergentStep",
                  {"step INTEGER", "slowest_rank INTEGER", "fastest_rank INTEGER",
                   "max_own_time_ms REAL", "min_own_time_ms REAL", "spread REAL"},
                  steps) &&
         db.Table("ClusterHostClock",
                  {"host TEXT", "ranks INTEGER", "offset_ms REAL", "uncertainty_ms REAL",
                   "samples INTEGER"},
                  clocks);
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
            InfoTables(db, result) && DiagnosisTables(db, result) && db.Exec("COMMIT");
  if (!ok) *error = "cannot write database '" + path + "': " + db.error();
  sqlite3_close(handle);
  if (!ok) std::filesystem::remove(path, ec);
  return ok;
}

}  // namespace aiprof::exporter
