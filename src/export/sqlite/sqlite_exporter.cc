#include "export/sqlite/sqlite_exporter.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unordered_map>

#include "analysis/op_statistics.h"
#include "analysis/step_trace.h"
#include "export/sqlite/analysis_tables.h"
#include "export/sqlite/communication_table.h"
#include "export/sqlite/cpu_sampling_tables.h"
#include "export/sqlite/database.h"
#include "export/sqlite/presorted_index.h"
#include "export/sqlite/process_key.h"
#include "export/sqlite/row_source.h"
#include "export/sqlite/row_split.h"
#include "model/communication.h"
#include "model/huge_pages.h"
#include "model/recorded_metadata.h"

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
CREATE TABLE TARGET_INFO_GPU(id INTEGER, globalPid INTEGER, name INTEGER, totalMemory INTEGER,
                             smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER,
                             threadsPerWarp INTEGER, maxWarpsPerSm INTEGER,
                             maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER,
                             maxRegistersPerBlock INTEGER, maxRegistersPerSm INTEGER,
                             maxShmemPerBlock INTEGER, maxShmemPerSm INTEGER);
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
                       fpStartNs INTEGER, bpEndNs INTEGER, eventId INTEGER, loop INTEGER);
CREATE TABLE DROPS(globalTid INTEGER, recordKind INTEGER, count INTEGER);
CREATE TABLE GC_RECORD(startNs INTEGER, endNs INTEGER, globalTid INTEGER);
)sql";

// Built after the inserts, in this order (the order of their sqlite_schema rows), with
// MSTX_EVENTS' index, the largest, between them: with a helper thread the helper puts its
// entries in order and the writer only appends them (presorted_index.h) instead of CREATE
// INDEX sorting them.
const char* const kIndexesBeforeMstx[] = {
    "CREATE INDEX TaskIndex ON TASK(startNs, globalTaskId)",
    "CREATE INDEX ApiStartIndex ON API(startNs)",
    "CREATE INDEX ApiNameIndex ON API(name)",
    "CREATE INDEX ArgsEventIndex ON ARGS(eventId)",
};
constexpr PresortedIndex kMstxStartIndex{"MstxStartIndex", "MSTX_EVENTS", "startNs"};
const char* const kIndexesAfterMstx[] = {
    "CREATE INDEX CounterIndex ON COUNTERS(seriesId, timestampNs)",
    "CREATE INDEX CpuSampleIndex ON CPU_SAMPLES(globalTid, timestampNs)",
};

template <size_t N>
bool CreateIndexes(Database& db, const char* const (&indexes)[N]) {
  for (const char* index : indexes) {
    if (!db.Exec(index)) return false;
  }
  return true;
}

// Yields rows [range.begin, range.end) through `fill` (which may skip a row by returning
// false).
template <typename Fill>
RowGenerator EachRowIn(RowRange range, Fill fill) {
  return [range, fill, next = range.begin](Row& row) mutable {
    while (next < range.end) {
      if (fill(next++, row)) return true;
      row.Clear();
    }
    return false;
  };
}
template <typename Fill>
RowGenerator EachRow(size_t count, Fill fill) {
  return EachRowIn({0, count}, fill);
}
// Yields the writer's share of `split`, batch by batch.
template <typename Fill>
RowGenerator EachRowOf(RowSplit& split, Fill fill) {
  return [&split, fill, range = RowRange{}](Row& row) mutable {
    for (;;) {
      while (range.begin < range.end) {
        if (fill(range.begin++, row)) return true;
        row.Clear();
      }
      range = split.NextBatch();
      if (range.empty()) return false;
    }
  };
}

// MSTX_EVENTS.startNs of marker `i`.
int64_t MarkerStart(const model::Model& m, size_t i) {
  const uint32_t row = m.markers.row[i];
  return m.markers.is_instant[i] ? m.instants.ts[row] : m.slices.ts[row];
}

// The MSTX_EVENTS row of marker `i`, whose rowid is i + 1 (no marker is skipped).
bool MarkerRow(const model::Model& m, size_t i, Row& r) {
  const model::MarkerTable& mk = m.markers;
  const model::SliceTable& s = m.slices;
  uint32_t row = mk.row[i];
  bool instant = mk.is_instant[i];
  uint32_t track = instant ? m.instants.track[row] : s.track[row];
  int64_t start = MarkerStart(m, i);
  int64_t tid = GlobalTid(m, m.tracks.thread[track]);
  uint32_t end_thread = mk.end_thread(i);
  r.Int(start).Int(instant ? start : s.end[row]);
  r.Int(static_cast<uint8_t>(mk.event_type[i]));
  r.Int(instant ? -1 : int64_t{row}).Int(mk.category(i));
  r.Int(instant ? m.instants.name[row] : s.name[row]).Int(tid);
  r.Int(end_thread == model::kNoRow ? tid : GlobalTid(m, end_thread));
  r.Int(mk.domain[i]).Int(-1);
  return true;
}

// The slice tables: a slice is a device task (TASK + COMPUTE_TASK_INFO), a marker range
// (MSTX_EVENTS), a step (STEP_TIME), a garbage collection (GC_RECORD, torch_npu's table for
// gc_detect_threshold) or else a host API row. Its slice row is its id everywhere, so
// FLOWS, ARGS and API.parentId refer to any of them.
bool WriteSliceTables(const model::Model& m, Database& db,
                      const std::function<int64_t(std::string_view)>& extra_id, RowSplit& markers) {
  const model::SliceTable& s = m.slices;
  enum : uint8_t { kApi = 0, kDeviceTask = 1, kElsewhere = 2, kGc = 3 };
  std::vector<uint8_t> kind;
  model::AssignOnHugePages(kind, s.size(), uint8_t{kApi});
  std::vector<uint8_t> device_category(m.strings.size(), kApi);
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    const std::string_view text = m.strings.Get(id);
    device_category[id] = analysis::IsDeviceTaskCategory(text) ? kDeviceTask
                          : text == "gc"                       ? kGc
                                                               : kApi;
  }
  for (size_t row = 0; row < s.size(); ++row) kind[row] = device_category[s.category[row]];
  for (size_t i = 0; i < m.markers.size(); ++i) {
    if (!m.markers.is_instant[i] && !kind[m.markers.row[i]]) kind[m.markers.row[i]] = kElsewhere;
  }
  for (uint32_t slice : m.steps.slice) {
    if (slice != model::kNoRow && !kind[slice]) kind[slice] = kElsewhere;
  }
  const model::ArgTable& a = m.args;
  model::StringId input_dims = m.strings.Find("Input Dims");
  model::StringId input_type = m.strings.Find("Input type");
  // The argument's raw value (a StringId for these two), 0 when the slice lacks it.
  auto arg_value = [&](uint32_t set, model::StringId key) -> int64_t {
    return static_cast<int64_t>(a.Bits(set, key).value_or(0));
  };
  bool ok =
      db.InsertAll("TASK", 11, EachRow(s.size(), [&](size_t row, Row& r) {
                     if (kind[row] != kDeviceTask) return false;
                     uint32_t thread = m.ThreadOfSlice(row);
                     uint32_t process = m.threads.process[thread];
                     r.Int(s.ts[row]).Int(s.end[row]).Int(m.processes.device_id[process]).Int(-1);
                     r.Int(static_cast<int64_t>(row))
                         .Int(GlobalPid(m, process))
                         .Int(extra_id(analysis::TaskTypeOf(m, static_cast<uint32_t>(row))))
                         .Int(-1);
                     r.Int(m.threads.tid[thread]).Int(static_cast<int64_t>(row)).Int(-1);
                     return true;
                   }));
  ok = ok && db.InsertAll("COMPUTE_TASK_INFO", 6, EachRow(s.size(), [&](size_t row, Row& r) {
                            if (kind[row] != kDeviceTask) return false;
                            r.Int(s.name[row]).Int(static_cast<int64_t>(row));
                            r.Int(extra_id(analysis::TaskTypeOf(m, static_cast<uint32_t>(row))));
                            r.Int(s.name[row]).Int(arg_value(s.args[row], input_dims));
                            r.Int(arg_value(s.args[row], input_type));
                            return true;
                          }));
  ok = ok && db.InsertAll("GC_RECORD", 3, EachRow(s.size(), [&](size_t row, Row& r) {
                            if (kind[row] != kGc) return false;
                            r.Int(s.ts[row]).Int(s.end[row]);
                            r.Int(GlobalTid(m, m.ThreadOfSlice(row)));
                            return true;
                          }));
  ok = ok && db.InsertAll(
                 "API", 9, EachRow(s.size(), [&](size_t row, Row& r) {
                   if (kind[row] != kApi) return false;
                   r.Int(static_cast<int64_t>(row)).Int(s.ts[row]).Int(s.end[row]);
                   r.Int(GlobalTid(m, m.ThreadOfSlice(row))).Int(s.name[row]).Int(s.category[row]);
                   r.Int(s.depth[row]);
                   r.Int(s.parent[row] == model::kNoRow ? -1 : int64_t{s.parent[row]}).Int(-1);
                   return true;
                 }));
  // One ARGS row per argument of any slice: walk the slices that have a set.
  uint32_t row = 0, arg = 0, arg_end = 0;
  ok = ok && db.InsertAll("ARGS", 3, [&](Row& r) {
    while (arg == arg_end) {
      if (row >= s.size()) return false;
      uint32_t set = s.args[row++];
      arg = set ? a.set_begin[set] : 0;
      arg_end = set ? a.set_begin[set + 1] : 0;
    }
    uint32_t i = arg++;
    r.Int(row - 1).Int(a.key[i]);
    switch (a.type[i]) {
      case model::ArgType::kString:
      case model::ArgType::kJson:
        r.Text(m.Str(static_cast<model::StringId>(a.value[i])));
        break;
      case model::ArgType::kDouble:
        r.Real(std::bit_cast<double>(a.value[i]));
        break;
      default:
        r.Int(static_cast<int64_t>(a.value[i]));
    }
    return true;
  });
  return ok && db.InsertAll("MSTX_EVENTS", 10, EachRowOf(markers, [&](size_t i, Row& r) {
                              return MarkerRow(m, i, r);
                            }));
}

// The run's own tables: META_DATA (schema version, losses, what the program recorded about
// itself), SESSION_TIME_INFO, HOST_INFO, PROCESSES, TARGET_INFO_GPU, THREADS.
void WriteRunTables(const model::Model& m, Database& db) {
  uint64_t skipped = 0;
  for (const auto& f : m.files) skipped += f.report.chunks_skipped;
  auto* meta = db.Prepare("INSERT INTO META_DATA VALUES(?,?)");
  meta->Insert(std::string_view("SCHEMA_VERSION"), std::string_view(kDbSchemaVersion));
  meta->Insert(std::string_view("DROPPED_EVENTS"), std::to_string(m.drops.total()));
  meta->Insert(std::string_view("SKIPPED_CHUNKS"), std::to_string(skipped));
  // What the program recorded about itself, as torch_npu's profiler_metadata.json holds it:
  // ENV_VARIABLES (a JSON object) and each add_metadata key (a string as given, else JSON).
  const model::RecordedMetadata recorded = model::ReadRecordedMetadata(m);
  if (!recorded.environment.empty()) {
    nlohmann::ordered_json environment = nlohmann::ordered_json::object();
    for (const auto& [name, value] : recorded.environment) environment[name] = value;
    meta->Insert(std::string_view("ENV_VARIABLES"), environment.dump());
  }
  for (const auto& [key, json] : recorded.user) {
    const auto value = nlohmann::json::parse(json, nullptr, false);
    meta->Insert(std::string_view(key),
                 value.is_string() ? value.get<std::string>() : std::string(json));
  }
  db.Prepare("INSERT INTO SESSION_TIME_INFO VALUES(?,?)")->Insert(m.start_ns, m.end_ns);

  auto* hosts = db.Prepare("INSERT INTO HOST_INFO VALUES(?,?)");
  auto* processes = db.Prepare("INSERT OR IGNORE INTO PROCESSES VALUES(?,?,?,?,?,?,?)");
  std::vector<model::StringId> seen_hosts;
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    model::StringId host = m.processes.host[p];
    if (std::find(seen_hosts.begin(), seen_hosts.end(), host) == seen_hosts.end()) {
      seen_hosts.push_back(host);
      hosts->Insert(m.Str(host), m.Str(host));
    }
    processes->Insert(GlobalPid(m, p), m.processes.pid[p], m.processes.name[p],
                      m.processes.label[p], m.processes.device_id[p], m.processes.rank[p], host);
  }
  auto* gpus = db.Prepare("INSERT INTO TARGET_INFO_GPU VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const model::DeviceProperties& d : m.devices) {
    gpus->Insert(m.processes.device_id[d.process], GlobalPid(m, d.process), d.name,
                 static_cast<int64_t>(d.total_memory), d.sm_count, d.compute_major, d.compute_minor,
                 d.warp_size, d.max_warps_per_sm, d.max_blocks_per_sm, d.max_threads_per_block,
                 d.registers_per_block, d.registers_per_sm, d.shared_memory_per_block,
                 d.shared_memory_per_sm);
  }
  auto* threads = db.Prepare("INSERT OR IGNORE INTO THREADS VALUES(?,?,?,?)");
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    threads->Insert(GlobalTid(m, t), GlobalPid(m, m.threads.process[t]), m.threads.tid[t],
                    m.threads.name[t]);
  }
}

// COUNTER_SERIES, COUNTERS, FLOWS, STEP_TIME (the analyses' step trace when given) and DROPS.
void WriteCounterFlowStepTables(const model::Model& m, Database& db,
                                const analysis::AnalysisSet* analyses) {
  auto* series = db.Prepare("INSERT INTO COUNTER_SERIES VALUES(?,?,?,?,?,?)");
  for (uint32_t i = 0; i < m.counter_series.size(); ++i) {
    series->Insert(int64_t{i}, m.counter_series.name[i], GlobalPid(m, m.counter_series.process[i]),
                   uint32_t{m.counter_series.scope[i]}, m.counter_series.instance[i],
                   m.counter_series.unit[i]);
  }
  const model::CounterTable& c = m.counters;
  db.InsertAll("COUNTERS", 3, EachRow(c.size(), [&](size_t i, Row& r) {
                 r.Int(c.series[i]).Int(c.ts[i]).Real(c.value[i]);
                 return true;
               }));
  auto* flows = db.Prepare("INSERT INTO FLOWS VALUES(?,?,?,?)");
  for (size_t i = 0; i < m.flows.size(); ++i) {
    flows->Insert(m.flows.id[i], m.flows.category[i], m.flows.from_slice[i], m.flows.to_slice[i]);
  }
  auto* steps = db.Prepare("INSERT INTO STEP_TIME VALUES(?,?,?,?,?,?,?,?)");
  // The analyses already hold the step trace; compute it only without them.
  const std::vector<analysis::StepTraceRow> computed =
      analyses ? std::vector<analysis::StepTraceRow>{}
               : analysis::ComputeStepTrace(m, analysis::StepsOf(m).steps);
  for (const auto& r : analyses ? analyses->step_breakdown.trace : computed) {
    // eventId: the step's range (its slice row is its event id); none for steps bounded by
    // Optimizer.step.
    if (r.slice == model::kNoRow) {
      steps->Insert(r.step, r.begin_ns, r.iteration_end_ns, GlobalTid(m, r.thread), r.fp_start_ns,
                    r.bp_end_ns, nullptr, r.loop);
    } else {
      steps->Insert(r.step, r.begin_ns, r.iteration_end_ns, GlobalTid(m, r.thread), r.fp_start_ns,
                    r.bp_end_ns, r.slice, r.loop);
    }
  }
  auto* drops = db.Prepare("INSERT INTO DROPS VALUES(?,?,?)");
  for (size_t i = 0; i < m.drops.size(); ++i) {
    drops->Insert(GlobalTid(m, m.drops.thread[i]), uint32_t{m.drops.kind[i]}, m.drops.count[i]);
  }
}

// The helper's share of a large MSTX_EVENTS, in eighths of its rows, from the back (at most
// the rows the writer has not reached once the analyses are done): the writer has the
// analysis tables and the index entries to write besides its front rows. On the 4 M-range
// data set (docs/PERFORMANCE.md) the helper then finishes ~0.4 s before the writer needs
// its rows; with three quarters, the writer had more rows of its own to write.
constexpr size_t kHelperShareEighths = 7;

// The helper thread of a large MSTX_EVENTS: it takes the table's back rows and writes them
// into a database of its own, which the writer appends after its rows (MergeFrom).
class SideWriter {
 public:
  SideWriter(const model::Model& m, const AnalysesWait& analyses, RowSplit& markers,
             std::string markers_sql, std::string path, size_t min_rows)
      : path_(std::move(path)),
        thread_([=, this, &m, &markers] { Write(m, analyses, markers, markers_sql, min_rows); }) {}
  ~SideWriter() {
    if (thread_.joinable()) thread_.join();
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  // The rows of MSTX_EVENTS in MstxStartIndex's order, once the helper has them.
  const std::vector<uint32_t>& MarkerIndexOrder() {
    index_ordered_.get_future().wait();
    return marker_index_order_;
  }
  // Waits for the helper and appends the rows it wrote to `db` (outside a transaction).
  bool MergeInto(Database& db) {
    thread_.join();
    if (!ok_) return db.Fail("side database: " + error_);
    return !wrote_rows_ || db.MergeFrom(path_);
  }

 private:
  void Write(const model::Model& m, const AnalysesWait& analyses, RowSplit& markers,
             const std::string& markers_sql, size_t min_rows) {
    std::error_code ec;
    std::filesystem::remove(path_, ec);  // a killed export's leftover
    // The two cores go to the analyses and the writer first: the writer needs the helper's
    // rows only once it has written the analysis tables and the index entries, and their
    // order from here before those.
    analyses();
    marker_index_order_ =
        IndexOrder(m.markers.size(), [&m](size_t i) { return MarkerStart(m, i); });
    index_ordered_.set_value();
    const RowRange back = markers.TakeBack(m.markers.size() / 8 * kHelperShareEighths, min_rows);
    if (back.empty()) {
      ok_ = true;
      return;
    }
    Database db;
    ok_ = db.Open(path_) && db.Begin() && db.Exec(markers_sql) &&
          db.InsertAll("MSTX_EVENTS", 10,
                       EachRowIn(back, [&](size_t i, Row& r) { return MarkerRow(m, i, r); })) &&
          db.Commit();
    wrote_rows_ = ok_;
    if (!ok_) error_ = db.error();
  }

  std::string path_;
  bool ok_ = false;
  bool wrote_rows_ = false;
  std::string error_;
  std::promise<void> index_ordered_;
  std::vector<uint32_t> marker_index_order_;
  std::thread thread_;  // last: it starts once the members above are set
};

// The indexes. With `side`, MSTX_EVENTS' from its entries in the order the helper found,
// written while the helper writes the table's back rows, which are appended before the
// entries become the index.
bool WriteIndexes(const model::Model& m, Database& db, SideWriter* side) {
  if (!CreateIndexes(db, kIndexesBeforeMstx)) return false;
  if (side == nullptr) {
    return db.Exec(kMstxStartIndex.CreateSql()) && CreateIndexes(db, kIndexesAfterMstx);
  }
  return WriteIndexEntries(db, kMstxStartIndex, side->MarkerIndexOrder(),
                           [&m](size_t i) { return MarkerStart(m, i); }) &&
         db.Commit() && side->MergeInto(db) && db.Begin() &&
         AdoptIndexEntries(db, kMstxStartIndex) && CreateIndexes(db, kIndexesAfterMstx);
}

// The tables that need the analyses (or, without them, this writer's own computation),
// but for the analysis tables themselves.
bool WriteAnalysedModelTables(const model::Model& m, Database& db,
                              const analysis::AnalysisSet* analyses,
                              const std::function<int64_t(std::string_view)>& extra_id) {
  WriteCounterFlowStepTables(m, db, analyses);
  std::string communication_error;
  // Likewise the communication classification.
  const model::CommunicationOps classified =
      analyses ? model::CommunicationOps{} : model::ClassifyCommunication(m);
  if (!WriteCommunicationOpTable(db, m, (analyses ? analyses->communication : classified).ops,
                                 extra_id, &communication_error)) {
    return db.Fail(communication_error);
  }
  // The analyses' one symbolisation of the CPU samples; without them, this writer's own.
  analysis::CpuProfile own_profile;
  if (analyses == nullptr && !m.cpu.empty()) own_profile = analysis::SymbolizeCpuProfile(m);
  std::string cpu_error;
  if (!WriteCpuSamplingTables(db, m, analyses != nullptr ? analyses->cpu_profile : own_profile,
                              &cpu_error)) {
    return db.Fail(cpu_error);
  }
  return true;
}

// Every table in the order of docs/db-schema.md. The model's own tables are written while
// the analyses may still run; with a helper thread, a large MSTX_EVENTS is shared with it.
bool WriteTables(const model::Model& m, Database& db, const AnalysesWait& wait_analyses,
                 const SqliteOptions& options, const std::string& side_path) {
  if (!db.Exec(kSchema)) return false;
  RowSplit markers(m.markers.size());
  std::optional<SideWriter> side;
  if (options.threads > 1 && m.markers.size() >= options.side_min_rows) {
    side.emplace(m, wait_analyses, markers, db.TableSql("MSTX_EVENTS"), side_path,
                 options.side_min_rows);
  }
  if (!db.Begin()) return false;
  // Ids used only by this writer (task types, metadata) are appended after the model's.
  std::vector<std::string> extra;
  std::function<int64_t(std::string_view)> extra_id = [&](std::string_view text) -> int64_t {
    for (size_t i = 0; i < extra.size(); ++i) {
      if (extra[i] == text) return static_cast<int64_t>(m.strings.size() + i);
    }
    extra.emplace_back(text);
    return static_cast<int64_t>(m.strings.size() + extra.size() - 1);
  };
  db.InsertAll("STRING_IDS", 2, EachRow(m.strings.size(), [&](size_t id, Row& r) {
                 r.Int(static_cast<int64_t>(id)).Text(m.strings.Get(static_cast<uint32_t>(id)));
                 return true;
               }));
  WriteRunTables(m, db);
  if (!WriteSliceTables(m, db, extra_id, markers)) return false;
  const analysis::AnalysisSet* analyses = wait_analyses();
  if (!WriteAnalysedModelTables(m, db, analyses, extra_id)) return false;
  std::string analysis_error;
  if (analyses != nullptr && !WriteAnalysisTables(db, m, *analyses, &analysis_error)) {
    return db.Fail(analysis_error);
  }
  auto* strings = db.Prepare("INSERT INTO STRING_IDS VALUES(?,?)");
  for (size_t i = 0; i < extra.size(); ++i) {
    strings->Insert(static_cast<int64_t>(m.strings.size() + i), std::string_view(extra[i]));
  }
  return db.error().empty() && WriteIndexes(m, db, side ? &*side : nullptr) && db.Commit();
}

}  // namespace

bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error,
                 const analysis::AnalysisSet* analyses) {
  return WriteSqlite(
      model, path, error, [analyses] { return analyses; }, SqliteOptions{});
}

bool WriteSqlite(const model::Model& model, const std::string& path, std::string* error,
                 const AnalysesWait& analyses, const SqliteOptions& options) {
  std::string temporary = path + ".tmp";
  std::error_code ec;
  std::filesystem::remove(temporary, ec);
  bool ok;
  {
    Database db;
    ok = db.Open(temporary) && WriteTables(model, db, analyses, options, path + ".side.tmp");
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
