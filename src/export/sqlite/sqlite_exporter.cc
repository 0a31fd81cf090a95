#include "export/sqlite/sqlite_exporter.h"

#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <unordered_map>

#include "analysis/op_statistics.h"
#include "analysis/step_trace.h"
#include "export/sqlite/communication_table.h"

namespace aiprof::exporter {
namespace {

const char* const kSchema = R"sql(
CREATE TABLE STRING_IDS(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE META_DATA(name TEXT, value TEXT);
CREATE TABLE SESSION_TIME_INFO(startTimeNs INTEGER, endTimeNs INTEGER);
CREATE TABLE HOST_INFO(hostUid TEXT, hostName TEXT);
CREATE TABLE PROCESSES(globalPid INTEGER PRIMARY KEY, pid INTEGER, name INTEGER, label INTEGER,
                       deviceId INTEGER, rankId INTEGER, hostName INTEGER);
CREATE TABLE THREADS(globalTid INTEGER PRIMARY KEY, globalPid INTEGER, tid INTEGER,
                     name INTEGER);
CREATE TABLE TASK(startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
                  globalTaskId INTEGER PRIMARY KEY, globalPid INTEGER, taskType INTEGER,
                  contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO(name INTEGER, globalTaskId INTEGER PRIMARY KEY, taskType INTEGER,
                               opType INTEGER, inputShapes INTEGER, inputDataTypes INTEGER);
CREATE TABLE API(id INTEGER PRIMARY KEY, startNs INTEGER, endNs INTEGER, globalTid INTEGER,
                 name INTEGER, category INTEGER, depth INTEGER, parentId INTEGER,
                 connectionId INTEGER);
CREATE TABLE ARGS(eventId INTEGER, name INTEGER, value);
CREATE TABLE MSTX_EVENTS(startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER,
                         category INTEGER, message INTEGER, globalTid INTEGER,
                         endGlobalTid INTEGER, domainId INTEGER, connectionId INTEGER);
CREATE TABLE ENUM_MSTX_EVENT_TYPE(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_MSTX_EVENT_TYPE VALUES(0,'marker'),(1,'push/pop'),(2,'start/end'),(3,'marker_ex');
CREATE TABLE COUNTER_SERIES(id INTEGER PRIMARY KEY, name INTEGER, globalPid INTEGER,
                            scope INTEGER, instance INTEGER, unit INTEGER);
CREATE TABLE COUNTERS(seriesId INTEGER, timestampNs INTEGER, value REAL);
CREATE TABLE FLOWS(id INTEGER, category INTEGER, fromEventId INTEGER, toEventId INTEGER);
CREATE TABLE STEP_TIME(id INTEGER, startNs INTEGER, endNs INTEGER, globalTid INTEGER,
                       fpStartNs INTEGER, bpEndNs INTEGER, eventId INTEGER);
CREATE TABLE DROPS(globalTid INTEGER, recordKind INTEGER, count INTEGER);
)sql";

const char* const kIndexes = R"sql(
CREATE INDEX TaskIndex ON TASK(startNs, globalTaskId);
CREATE INDEX ApiStartIndex ON API(startNs);
CREATE INDEX ApiNameIndex ON API(name);
CREATE INDEX ArgsEventIndex ON ARGS(eventId);
CREATE INDEX MstxStartIndex ON MSTX_EVENTS(startNs);
CREATE INDEX CounterIndex ON COUNTERS(seriesId, timestampNs);
)sql";

class Db {
 public:
  ~Db() {
    for (sqlite3_stmt* s : statements_) sqlite3_finalize(s);
    if (db_) sqlite3_close(db_);
  }
  bool Open(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) return Fail("open");
    return Exec(
        "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
        "PRAGMA locking_mode=EXCLUSIVE; "
        "PRAGMA cache_size=-32768;");
  }
  bool Exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      error_ = message ? message : "unknown";
      sqlite3_free(message);
      return false;
    }
    return true;
  }
  sqlite3_stmt* Prepare(const char* sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr) != SQLITE_OK) {
      Fail(sql);
      return nullptr;
    }
    statements_.push_back(statement);
    return statement;
  }
  // Binds the values in order and runs the statement.
  template <typename... Values>
  void Insert(sqlite3_stmt* statement, const Values&... values) {
    int index = 0;
    (Bind(statement, ++index, values), ...);
    if (sqlite3_step(statement) != SQLITE_DONE && error_.empty()) Fail("insert");
    sqlite3_reset(statement);
  }
  const std::string& error() const { return error_; }
  sqlite3* handle() const { return db_; }
  static void Bind(sqlite3_stmt* s, int i, int64_t v) { sqlite3_bind_int64(s, i, v); }
  static void Bind(sqlite3_stmt* s, int i, uint64_t v) {
    sqlite3_bind_int64(s, i, static_cast<int64_t>(v));
  }
  static void Bind(sqlite3_stmt* s, int i, uint32_t v) { sqlite3_bind_int64(s, i, v); }
  static void Bind(sqlite3_stmt* s, int i, int32_t v) { sqlite3_bind_int64(s, i, v); }
  static void Bind(sqlite3_stmt* s, int i, double v) { sqlite3_bind_double(s, i, v); }
  static void Bind(sqlite3_stmt* s, int i, std::nullptr_t) { sqlite3_bind_null(s, i); }
  static void Bind(sqlite3_stmt* s, int i, std::string_view v) {
    sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  bool Fail(const std::string& what) {
    error_ = what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    return false;
  }

 private:
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> statements_;
  std::string error_;
};

// Inserts rows of one table kBatchRows at a time through a multi-row INSERT: SQLite's
// per-statement overhead dominates single-row inserts of narrow rows. Text values must stay
// valid until Flush() (they point into the model's string pool).
class BatchInserter {
 public:
  static constexpr int kBatchRows = 64;
  BatchInserter(Db& db, const char* table, int columns) : db_(db), columns_(columns) {
    std::string row = "(" + std::string(static_cast<size_t>(columns) * 2 - 1, '?') + ")";
    for (size_t i = 2; i < row.size() - 1; i += 2) row[i] = ',';
    std::string single = std::string("INSERT INTO ") + table + " VALUES" + row;
    std::string batch = single;
    for (int i = 1; i < kBatchRows; ++i) batch += "," + row;
    single_ = db.Prepare(single.c_str());
    batch_ = db.Prepare(batch.c_str());
    pending_.reserve(static_cast<size_t>(columns) * kBatchRows);
  }
  ~BatchInserter() { Flush(); }

  template <typename... Values>
  void Add(const Values&... values) {
    (Push(values), ...);
    if (pending_.size() == static_cast<size_t>(columns_) * kBatchRows) Run(batch_, pending_.size());
  }
  void Flush() {
    for (size_t row = 0; row * columns_ < pending_.size(); ++row) {
      std::vector<Value> one(pending_.begin() + row * columns_,
                             pending_.begin() + (row + 1) * columns_);
      std::swap(one, scratch_);
      RunValues(single_, scratch_);
    }
    pending_.clear();
  }

 private:
  struct Value {
    enum Type : uint8_t { kInt, kDouble, kText, kNull } type;
    int64_t i;
    double d;
    std::string_view text;
  };
  void Push(int64_t v) { pending_.push_back({Value::kInt, v, 0, {}}); }
  void Push(uint64_t v) { Push(static_cast<int64_t>(v)); }
  void Push(uint32_t v) { Push(int64_t{v}); }
  void Push(int32_t v) { Push(int64_t{v}); }
  void Push(double v) { pending_.push_back({Value::kDouble, 0, v, {}}); }
  void Push(std::string_view v) { pending_.push_back({Value::kText, 0, 0, v}); }
  void Run(sqlite3_stmt* statement, size_t) {
    RunValues(statement, pending_);
    pending_.clear();
  }
  void RunValues(sqlite3_stmt* statement, const std::vector<Value>& values) {
    if (statement == nullptr) return;
    for (size_t i = 0; i < values.size(); ++i) {
      const Value& v = values[i];
      int index = static_cast<int>(i) + 1;
      switch (v.type) {
        case Value::kInt:
          sqlite3_bind_int64(statement, index, v.i);
          break;
        case Value::kDouble:
          sqlite3_bind_double(statement, index, v.d);
          break;
        case Value::kText:
          sqlite3_bind_text(statement, index, v.text.data(), static_cast<int>(v.text.size()),
                            SQLITE_STATIC);
          break;
        case Value::kNull:
          sqlite3_bind_null(statement, index);
          break;
      }
    }
    if (sqlite3_step(statement) != SQLITE_DONE && db_.error().empty()) db_.Fail("insert");
    sqlite3_reset(statement);
  }

  Db& db_;
  int columns_;
  sqlite3_stmt* single_ = nullptr;
  sqlite3_stmt* batch_ = nullptr;
  std::vector<Value> pending_, scratch_;
};

// Process and thread ids as msprof combines them: globalTid = globalPid << 32 | tid. Device
// processes get bit 31 set so they never collide with a host pid.
int64_t GlobalPid(const model::Model& m, uint32_t process) {
  int32_t device = m.processes.device_id[process];
  return device >= 0 ? (int64_t{1} << 31) | device : m.processes.pid[process];
}
int64_t GlobalTid(const model::Model& m, uint32_t thread) {
  return (GlobalPid(m, m.threads.process[thread]) << 32) | m.threads.tid[thread];
}

bool WriteTables(const model::Model& m, Db& db) {
  if (!db.Exec(kSchema) || !db.Exec("BEGIN")) return false;
  BatchInserter strings(db, "STRING_IDS", 2);
  // Ids used only by this writer (task types, metadata) are appended after the model's.
  std::vector<std::string> extra;
  auto extra_id = [&](std::string_view text) -> int64_t {
    for (size_t i = 0; i < extra.size(); ++i) {
      if (extra[i] == text) return static_cast<int64_t>(m.strings.size() + i);
    }
    extra.emplace_back(text);
    return static_cast<int64_t>(m.strings.size() + extra.size() - 1);
  };
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    strings.Add(int64_t{id}, m.strings.Get(id));
  }

  uint64_t skipped = 0;
  for (const auto& f : m.files) skipped += f.report.chunks_skipped;
  auto* meta = db.Prepare("INSERT INTO META_DATA VALUES(?,?)");
  db.Insert(meta, std::string_view("SCHEMA_VERSION"), std::string_view(kDbSchemaVersion));
  db.Insert(meta, std::string_view("DROPPED_EVENTS"), std::to_string(m.drops.total()));
  db.Insert(meta, std::string_view("SKIPPED_CHUNKS"), std::to_string(skipped));
  db.Insert(db.Prepare("INSERT INTO SESSION_TIME_INFO VALUES(?,?)"), m.start_ns, m.end_ns);

  auto* hosts = db.Prepare("INSERT INTO HOST_INFO VALUES(?,?)");
  auto* processes = db.Prepare("INSERT OR IGNORE INTO PROCESSES VALUES(?,?,?,?,?,?,?)");
  std::vector<model::StringId> seen_hosts;
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    model::StringId host = m.processes.host[p];
    if (std::find(seen_hosts.begin(), seen_hosts.end(), host) == seen_hosts.end()) {
      seen_hosts.push_back(host);
      db.Insert(hosts, m.Str(host), m.Str(host));
    }
    db.Insert(processes, GlobalPid(m, p), m.processes.pid[p], m.processes.name[p],
              m.processes.label[p], m.processes.device_id[p], m.processes.rank[p], host);
  }
  auto* threads = db.Prepare("INSERT OR IGNORE INTO THREADS VALUES(?,?,?,?)");
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    db.Insert(threads, GlobalTid(m, t), GlobalPid(m, m.threads.process[t]), m.threads.tid[t],
              m.threads.name[t]);
  }

  // A slice is a device task (TASK + COMPUTE_TASK_INFO), a marker range (MSTX_EVENTS), a
  // step (STEP_TIME) or else a host API row. Its slice row is its id everywhere, so FLOWS,
  // ARGS and API.parentId refer to any of them.
  std::vector<uint8_t> elsewhere(m.slices.size(), 0);
  for (size_t i = 0; i < m.markers.size(); ++i) {
    if (!m.markers.is_instant[i]) elsewhere[m.markers.row[i]] = 1;
  }
  for (uint32_t slice : m.steps.slice) elsewhere[slice] = 1;
  std::vector<uint8_t> device_category(m.strings.size(), 0);
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    device_category[id] = analysis::IsDeviceTaskCategory(m.strings.Get(id));
  }
  model::StringId input_dims = m.strings.Find("Input Dims");
  model::StringId input_type = m.strings.Find("Input type");
  BatchInserter task(db, "TASK", 11);
  BatchInserter compute(db, "COMPUTE_TASK_INFO", 6);
  BatchInserter api(db, "API", 9);
  BatchInserter args(db, "ARGS", 3);
  const model::SliceTable& s = m.slices;
  const model::ArgTable& a = m.args;
  for (uint32_t row = 0; row < s.size(); ++row) {
    uint32_t thread = m.ThreadOfSlice(row);
    uint32_t set = s.args[row];
    int64_t connection = -1;
    model::StringId shapes = 0, types = 0;
    for (uint32_t i = set ? a.set_begin[set] : 0; set && i < a.set_begin[set + 1]; ++i) {
      if (a.key[i] == input_dims) shapes = static_cast<model::StringId>(a.value[i]);
      if (a.key[i] == input_type) types = static_cast<model::StringId>(a.value[i]);
      switch (a.type[i]) {
        case model::ArgType::kString:
        case model::ArgType::kJson:
          args.Add(int64_t{row}, a.key[i], m.Str(static_cast<model::StringId>(a.value[i])));
          break;
        case model::ArgType::kDouble:
          args.Add(int64_t{row}, a.key[i], std::bit_cast<double>(a.value[i]));
          break;
        default:
          args.Add(int64_t{row}, a.key[i], static_cast<int64_t>(a.value[i]));
      }
    }
    if (device_category[s.category[row]]) {
      uint32_t process = m.threads.process[thread];
      int64_t type = extra_id(analysis::TaskTypeOf(m, row));
      task.Add(s.ts[row], s.end[row], m.processes.device_id[process], connection, int64_t{row},
               GlobalPid(m, process), type, int64_t{-1}, m.threads.tid[thread], int64_t{row},
               int64_t{-1});
      compute.Add(s.name[row], int64_t{row}, type, s.name[row], shapes, types);
    } else if (!elsewhere[row]) {
      api.Add(int64_t{row}, s.ts[row], s.end[row], GlobalTid(m, thread), s.name[row],
              s.category[row], int64_t{s.depth[row]},
              s.parent[row] == model::kNoRow ? int64_t{-1} : int64_t{s.parent[row]}, connection);
    }
  }

  BatchInserter mstx(db, "MSTX_EVENTS", 10);
  const model::MarkerTable& mk = m.markers;
  for (uint32_t i = 0; i < mk.size(); ++i) {
    uint32_t row = mk.row[i];
    bool instant = mk.is_instant[i];
    uint32_t track = instant ? m.instants.track[row] : s.track[row];
    int64_t start = instant ? m.instants.ts[row] : s.ts[row];
    int64_t tid = GlobalTid(m, m.tracks.thread[track]);
    int64_t end_tid = mk.end_thread[i] == model::kNoRow ? tid : GlobalTid(m, mk.end_thread[i]);
    mstx.Add(start, instant ? start : s.end[row], int64_t{static_cast<uint8_t>(mk.event_type[i])},
             instant ? int64_t{-1} : int64_t{row}, int64_t{mk.category[i]},
             instant ? m.instants.name[row] : s.name[row], tid, end_tid, mk.domain[i], int64_t{-1});
  }
  auto* series = db.Prepare("INSERT INTO COUNTER_SERIES VALUES(?,?,?,?,?,?)");
  for (uint32_t i = 0; i < m.counter_series.size(); ++i) {
    db.Insert(series, int64_t{i}, m.counter_series.name[i],
              GlobalPid(m, m.counter_series.process[i]), uint32_t{m.counter_series.scope[i]},
              m.counter_series.instance[i], m.counter_series.unit[i]);
  }
  BatchInserter counters(db, "COUNTERS", 3);
  for (size_t i = 0; i < m.counters.size(); ++i) {
    counters.Add(m.counters.series[i], m.counters.ts[i], m.counters.value[i]);
  }
  auto* flows = db.Prepare("INSERT INTO FLOWS VALUES(?,?,?,?)");
  for (size_t i = 0; i < m.flows.size(); ++i) {
    db.Insert(flows, m.flows.id[i], m.flows.category[i], m.flows.from_slice[i],
              m.flows.to_slice[i]);
  }
  auto* steps = db.Prepare("INSERT INTO STEP_TIME VALUES(?,?,?,?,?,?,?)");
  for (const auto& r : analysis::ComputeStepTrace(m)) {
    db.Insert(steps, r.step, r.begin_ns, r.iteration_end_ns, GlobalTid(m, r.thread), r.fp_start_ns,
              r.bp_end_ns);
  }
  auto* drops = db.Prepare("INSERT INTO DROPS VALUES(?,?,?)");
  for (size_t i = 0; i < m.drops.size(); ++i) {
    db.Insert(drops, GlobalTid(m, m.drops.thread[i]), uint32_t{m.drops.kind[i]}, m.drops.count[i]);
  }
  std::string communication_error;
  if (!WriteCommunicationOpTable(db.handle(), m, extra_id, &communication_error)) {
    return db.Fail(communication_error);
  }
  for (size_t i = 0; i < extra.size(); ++i) {
    strings.Add(static_cast<int64_t>(m.strings.size() + i), std::string_view(extra[i]));
  }
  for (BatchInserter* table : {&strings, &task, &compute, &api, &args, &mstx, &counters}) {
    table->Flush();
  }
  return db.error().empty() && db.Exec(kIndexes) && db.Exec("COMMIT");
}

}  // namespace

bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error) {
  std::string temporary = path + ".tmp";
  std::error_code ec;
  std::filesystem::remove(temporary, ec);
  bool ok;
  {
    Db db;
    ok = db.Open(temporary) && WriteTables(model, db);
    if (!ok) *error = "cannot write database '" + path + "': " + db.error();
  }
  if (ok) {
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
      *error = "cannot rename '" + temporary + "': " + ec.message();
      ok = false;
    }
  }
  if (!ok) std::filesystem::remove(temporary, ec);
  return ok;
}

}  // namespace aiprof::exporter
