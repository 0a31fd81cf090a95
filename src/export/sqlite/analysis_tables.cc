#include "export/sqlite/analysis_tables.h"

#include <filesystem>

#include "export/analysis/communication_files.h"
#include "export/sqlite/critical_path_tables.h"
#include "export/sqlite/resource_analysis_tables.h"

namespace aiprof::exporter {
namespace {

const char* const kAnalysisSchema = R"sql(
CREATE TABLE ENUM_OVERLAP_ANALYSIS_TYPE(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_OVERLAP_ANALYSIS_TYPE VALUES(0,'COMPUTE'),(1,'COMMUNICATION'),
  (2,'COMM_NOT_OVERLAP_COMP'),(3,'FREE');
CREATE TABLE OVERLAP_ANALYSIS(id INTEGER PRIMARY KEY, deviceId INTEGER, startNs INTEGER,
                              endNs INTEGER, type INTEGER, globalPid INTEGER);
CREATE TABLE StepTraceTime(deviceId INTEGER, step INTEGER, computing REAL,
                           communication_not_overlapped REAL, overlapped REAL,
                           communication REAL, free REAL, stage REAL, bubble REAL,
                           communication_not_overlapped_and_exclude_receive REAL,
                           preparing REAL, startNs INTEGER, endNs INTEGER, rankId INTEGER,
                           globalPid INTEGER, loop INTEGER, inputWait REAL);
CREATE TABLE ANALYSIS_INPUTS(name TEXT, value TEXT);
)sql";

// As sqlite_exporter.cc: device processes get bit 31 set so they never collide with a pid.
int64_t GlobalPid(const model::Model& m, uint32_t process) {
  int32_t device = m.processes.device_id[process];
  return device >= 0 ? (int64_t{1} << 31) | device : m.processes.pid[process];
}

double Micros(int64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

}  // namespace

bool WriteAnalysisTables(sqlite3* db, RowSource& rows, const model::Model& m,
                         const analysis::AnalysisSet& set, std::string* error) {
  if (sqlite3_exec(db, kAnalysisSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
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
  ok = ok && rows.InsertAll(
                 db, "StepTraceTime", 17,
                 [&](Row& row) {
                   if (next == steps.size()) return false;
                   const analysis::StepBreakdownRow& r = steps[next++];
                   row.Int(r.device_id);
                   if (has_steps) {
                     row.Int(static_cast<int64_t>(r.step));
                   } else {
                     row.Null();
                   }
                   row.Real(Micros(r.computing_ns))
                       .Real(Micros(r.communication_not_overlapped_ns))
                       .Real(Micros(r.overlapped_ns()))
                       .Real(Micros(r.communication_ns))
                       .Real(Micros(r.free_ns))
                       .Real(Micros(r.stage_ns()))
                       .Real(Micros(r.bubble_ns))
                       .Real(Micros(r.communication_not_overlapped_exclude_receive_ns()))
                       .Real(Micros(r.preparing_ns));
                   row.Int(r.begin_ns).Int(r.end_ns).Int(r.rank);
                   row.Int(GlobalPid(m, scopes[r.scope].process));
                   if (has_steps) {
                     row.Int(r.loop);
                   } else {
                     row.Null();
                   }
                   row.Real(Micros(r.input_wait_ns));
                   return true;
                 },
                 error);
  if (!ok) return false;
  const analysis::AnalysisInputs& in = set.inputs;
  std::string ranks;
  for (int32_t rank : in.ranks) ranks += (ranks.empty() ? "" : " ") + std::to_string(rank);
  const std::pair<std::string, std::string> values[] = {
      {"run_type", in.device_run ? "CUDA" : "CPU-only"},
      {"compute_input", std::string(analysis::ComputeInputName(in.compute))},
      {"step_source", std::string(analysis::StepSourceName(in.step_source))},
      {"steps", std::to_string(in.steps)},
      {"devices", std::to_string(in.devices)},
      {"host_processes", std::to_string(in.host_processes)},
      {"ranks", ranks},
      {"communication_ops", std::to_string(in.communication_ops)},
      {"dropped_records", std::to_string(in.dropped_records)},
      {"description", in.Describe()},
  };
  size_t value = 0;
  return rows.InsertAll(
             db, "ANALYSIS_INPUTS", 2,
             [&](Row& row) {
               if (value == std::size(values)) return false;
               row.Text(values[value].first).Text(values[value].second);
               ++value;
               return true;
             },
             error) &&
         WriteResourceAnalysisTables(db, rows, m, set, error) &&
         WriteCommunicationTables(db, set.communication_analysis, error) &&
         WriteCriticalPathTables(db, rows, m, set, error);
}

bool WriteAnalysisDb(const model::Model& model, const analysis::AnalysisSet& set,
                     const std::string& path, std::string* error) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  RowSource rows;
  std::string detail;
  bool ok = sqlite3_open_v2(path.c_str(), &db, flags, nullptr) == SQLITE_OK &&
            sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", nullptr,
                         nullptr, nullptr) == SQLITE_OK;
  if (!ok) detail = db ? sqlite3_errmsg(db) : "out of memory";
  ok = ok && rows.Register(db, &detail) && WriteAnalysisTables(db, rows, model, set, &detail);
  if (ok && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    detail = sqlite3_errmsg(db);
    ok = false;
  }
  sqlite3_close(db);
  if (!ok) {
    *error = "cannot write database '" + path + "': " + detail;
    std::filesystem::remove(path, ec);
  }
  return ok;
}

}  // namespace aiprof::exporter
