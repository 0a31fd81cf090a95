#include "export/sqlite/resource_analysis_tables.h"

#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"
#include "export/sqlite/process_key.h"

namespace aiprof::exporter {
namespace {

const char* const kSchema = R"sql(
CREATE TABLE DATA_PREPARATION(step INTEGER, tid INTEGER, startNs INTEGER, endNs INTEGER,
                              dataWaitNs INTEGER, waits INTEGER, loaderBusyNs INTEGER,
                              queueEmpty INTEGER, loop INTEGER);
CREATE TABLE MEMORY_POOL(id INTEGER PRIMARY KEY, name TEXT, source TEXT, deviceId INTEGER,
                         globalPid INTEGER, peakAllocated INTEGER, peakAllocatedNs INTEGER,
                         peakReserved INTEGER);
)sql";
// MEMORY_STEP comes here, from analysis::kMemoryStepColumns (MemoryStepSchema).
const char* const kSchemaAfterMemoryStep = R"sql(
CREATE TABLE OPERATOR_MEMORY_TOP(name TEXT, poolId INTEGER, allocations INTEGER,
                                 allocatedBytes INTEGER, maxAllocation INTEGER,
                                 freedBytes INTEGER);
CREATE TABLE MEMORY_CATEGORY(poolId INTEGER, category TEXT, timestampNs INTEGER, bytes INTEGER);
CREATE TABLE MEMORY_TRANSFER(step INTEGER, kind TEXT, count INTEGER, bytes INTEGER,
                             durationNs INTEGER, loop INTEGER);
CREATE TABLE TEMPORAL_BREAKDOWN(deviceId INTEGER, globalPid INTEGER, input TEXT,
                                idleNs INTEGER, computeNs INTEGER, nonComputeNs INTEGER,
                                kernelNs INTEGER);
CREATE TABLE KERNEL_TYPE_BREAKDOWN(deviceId INTEGER, globalPid INTEGER, kernelType TEXT,
                                   durationNs INTEGER);
CREATE TABLE KERNEL_BREAKDOWN(deviceId INTEGER, globalPid INTEGER, kernelType TEXT, name TEXT,
                              count INTEGER, sumNs INTEGER, maxNs INTEGER, minNs INTEGER,
                              meanNs REAL, stdNs REAL);
CREATE TABLE IDLE_TIME_BREAKDOWN(deviceId INTEGER, globalPid INTEGER, tid INTEGER,
                                 busyNs INTEGER, hostWaitNs INTEGER, kernelWaitNs INTEGER,
                                 otherNs INTEGER, hostWaitIntervals INTEGER,
                                 kernelWaitIntervals INTEGER, otherIntervals INTEGER,
                                 launchesKnown INTEGER);
CREATE TABLE CUDA_LAUNCH_OUTLIER(launchName TEXT, kernelName TEXT, launchStartNs INTEGER,
                                 kernelStartNs INTEGER, cpuDurationNs INTEGER,
                                 gpuDurationNs INTEGER, launchDelayNs INTEGER);
)sql";

bool IsTableColumn(const analysis::Column<analysis::MemoryStepRow>& column) {
  return column.WrittenBy(analysis::kDatabase);
}

std::string MemoryStepSchema() {
  std::string sql =
      "CREATE TABLE MEMORY_STEP(step INTEGER, poolId INTEGER, startNs INTEGER, "
      "endNs INTEGER";
  AppendColumnDefinitions<analysis::MemoryStepRow>(sql, analysis::kMemoryStepColumns,
                                                   IsTableColumn);
  return sql + ", loop INTEGER);";
}

Row& Process(Row& row, const model::Model& m, uint32_t process) {
  return row.Int(m.processes.device_id[process]).Int(GlobalPid(m, process));
}

template <typename T, typename Fill>
bool InsertEach(sqlite3* db, RowSource& rows, const char* table, int columns,
                const std::vector<T>& items, Fill fill, std::string* error) {
  size_t next = 0;
  return rows.InsertAll(
      db, table, columns,
      [&](Row& row) {
        if (next == items.size()) return false;
        fill(row, items[next++]);
        return true;
      },
      error);
}

// Live bytes per pool and category: one row per change point of every track.
bool WriteCategoryRows(sqlite3* db, RowSource& rows, const analysis::MemoryAnalysis& memory,
                       std::string* error) {
  size_t track = 0, point = 0;
  const auto& tracks = memory.category_tracks;
  return rows.InsertAll(
      db, "MEMORY_CATEGORY", 4,
      [&](Row& row) {
        while (track < tracks.size() && point == tracks[track].points.size()) {
          ++track;
          point = 0;
        }
        if (track == tracks.size()) return false;
        const auto& [ts, bytes] = tracks[track].points[point++];
        row.Int(tracks[track].pool).Text(analysis::MemoryCategoryName(tracks[track].category));
        row.Int(ts).Int(bytes);
        return true;
      },
      error);
}

}  // namespace

bool WriteResourceAnalysisTables(Database& database, const model::Model& m,
                                 const analysis::AnalysisSet& set, std::string* error) {
  sqlite3* db = database.handle();
  RowSource& rows = database.rows();
  const std::string schema = kSchema + MemoryStepSchema() + kSchemaAfterMemoryStep;
  if (sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("analysis tables: ") + sqlite3_errmsg(db);
    return false;
  }
  const analysis::DataPreparationResult& prep = set.data_preparation;
  const analysis::MemoryAnalysis& memory = set.memory;
  const analysis::KernelBreakdownResult& kernels = set.kernel_breakdown;
  int64_t pool_id = 0;
  const auto reserved = [](Row& row, int64_t bytes) -> Row& {
    return bytes < 0 ? row.Null() : row.Int(bytes);
  };
  return InsertEach(
             db, rows, "DATA_PREPARATION", 9, prep.steps,
             [&](Row& row, const analysis::DataPreparationStep& s) {
               row.Int(static_cast<int64_t>(s.step)).Int(m.threads.tid[s.thread]);
               row.Int(s.begin_ns).Int(s.end_ns).Int(s.wait_ns).Int(s.waits);
               row.Int(s.loader_busy_ns);
               if (prep.has_queue_view) {
                 row.Int(s.queue_empty ? 1 : 0);
               } else {
                 row.Null();
               }
               row.Int(s.loop);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_POOL", 8, memory.pools,
             [&](Row& row, const analysis::MemoryPool& pool) {
               row.Int(pool_id++).Text(pool.name).Text(analysis::MemoryPoolSourceName(pool.source));
               Process(row, m, pool.process).Int(pool.peak_allocated);
               reserved(row.Int(pool.peak_allocated_ts), pool.peak_reserved);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_STEP",
             5 + CountColumns<analysis::MemoryStepRow>(analysis::kMemoryStepColumns, IsTableColumn),
             memory.steps,
             [&](Row& row, const analysis::MemoryStepRow& s) {
               row.Int(static_cast<int64_t>(s.step)).Int(s.pool).Int(s.begin_ns).Int(s.end_ns);
               AppendCells<analysis::MemoryStepRow>(row, analysis::kMemoryStepColumns, s,
                                                    IsTableColumn);
               row.Int(s.loop);
             },
             error) &&
         InsertEach(
             db, rows, "OPERATOR_MEMORY_TOP", 6, memory.top_operators,
             [&](Row& row, const analysis::OperatorMemoryRow& op) {
               row.Text(op.name).Int(op.pool).Int(static_cast<int64_t>(op.allocations));
               row.Int(op.allocated_bytes).Int(op.max_allocation).Int(op.freed_bytes);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_TRANSFER", 6, memory.transfers,
             [&](Row& row, const analysis::MemoryTransferRow& t) {
               if (t.whole_run) {
                 row.Null();
               } else {
                 row.Int(static_cast<int64_t>(t.step));
               }
               row.Text(t.kind).Int(static_cast<int64_t>(t.count)).Int(t.bytes).Int(t.time_ns);
               if (t.whole_run) {
                 row.Null();
               } else {
                 row.Int(t.loop);
               }
             },
             error) &&
         InsertEach(
             db, rows, "TEMPORAL_BREAKDOWN", 7, kernels.temporal,
             [&](Row& row, const analysis::TemporalBreakdownRow& t) {
               Process(row, m, t.process).Text(analysis::ActivitySourceName(kernels.source));
               row.Int(t.idle_ns).Int(t.compute_ns).Int(t.non_compute_ns).Int(t.span_ns);
             },
             error) &&
         InsertEach(
             db, rows, "KERNEL_TYPE_BREAKDOWN", 4, kernels.type_time,
             [&](Row& row, const analysis::TypeTimeRow& t) {
               Process(row, m, t.process).Text(t.label).Int(t.time_ns);
             },
             error) &&
         InsertEach(
             db, rows, "KERNEL_BREAKDOWN", 10, kernels.top_kernels,
             [&](Row& row, const analysis::KernelStatsRow& k) {
               Process(row, m, k.process).Text(analysis::ActivityTypeName(k.type)).Text(k.name);
               row.Int(static_cast<int64_t>(k.count)).Int(k.total_ns).Int(k.max_ns);
               row.Int(k.min_ns).Real(k.mean_ns).Real(k.stddev_ns);
             },
             error) &&
         InsertEach(
             db, rows, "IDLE_TIME_BREAKDOWN", 11, set.idle_time.lanes,
             [&](Row& row, const analysis::IdleTimeRow& lane) {
               Process(row, m, lane.process).Int(m.threads.tid[lane.thread]).Int(lane.busy_ns);
               row.Int(lane.host_wait_ns).Int(lane.kernel_wait_ns).Int(lane.other_ns);
               row.Int(static_cast<int64_t>(lane.host_wait_intervals));
               row.Int(static_cast<int64_t>(lane.kernel_wait_intervals));
               row.Int(static_cast<int64_t>(lane.other_intervals)).Int(lane.has_launches);
             },
             error) &&
         InsertEach(
             db, rows, "CUDA_LAUNCH_OUTLIER", 7, kernels.launches.largest_delays,
             [&](Row& row, const analysis::LaunchOutlier& o) {
               row.Text(m.Str(m.slices.name[o.launch_slice]));
               row.Text(m.Str(m.slices.name[o.kernel_slice]));
               row.Int(m.slices.ts[o.launch_slice]).Int(m.slices.ts[o.kernel_slice]);
               row.Int(o.cpu_duration_ns).Int(o.gpu_duration_ns).Int(o.launch_delay_ns);
             },
             error) &&
         WriteCategoryRows(db, rows, memory, error);
}

}  // namespace aiprof::exporter
