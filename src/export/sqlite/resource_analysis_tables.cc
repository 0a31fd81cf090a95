#include "export/sqlite/resource_analysis_tables.h"

#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"
#include "export/sqlite/process_key.h"

namespace aiprof::exporter {
namespace {

// `CREATE TABLE name(keys, <the described columns the table holds>after);`.
template <typename Row>
std::string DescribedTable(std::string_view name, std::string_view keys,
                           analysis::Columns<Row> columns, std::string_view after = "") {
  std::string described;
  AppendColumnDefinitions(described, columns, IsTableColumn<Row>);
  // Without keys the table starts with its first described column (no ", ").
  if (keys.empty()) described.erase(0, 2);
  return "CREATE TABLE " + std::string(name) + "(" + std::string(keys) + described +
         std::string(after) + ");\n";
}

template <typename Row>
int TableColumns(int keys, analysis::Columns<Row> columns) {
  return keys + CountColumns(columns, IsTableColumn<Row>);
}

const char* const kDeviceKeys = "deviceId INTEGER, globalPid INTEGER";

// MEMORY_POOL: the pool's described names, its device and process, its described figures.
std::string MemoryPoolSchema() {
  const analysis::Columns<analysis::MemoryPool> columns = analysis::kMemoryPoolColumns;
  std::string sql = "CREATE TABLE MEMORY_POOL(id INTEGER PRIMARY KEY";
  AppendColumnDefinitions(sql, columns.first(analysis::kMemoryPoolTableNameColumns),
                          IsTableColumn<analysis::MemoryPool>);
  sql += ", ";
  sql += kDeviceKeys;
  AppendColumnDefinitions(sql, columns.subspan(analysis::kMemoryPoolTableNameColumns),
                          IsTableColumn<analysis::MemoryPool>);
  return sql + ");\n";
}

// The tables in the order the database has always listed them.
std::string Schema() {
  using namespace analysis;
  return "\n" +
         DescribedTable<DataPreparationStep>("DATA_PREPARATION", "step INTEGER, tid INTEGER",
                                             kDataPreparationColumns, ", loop INTEGER") +
         MemoryPoolSchema() +
         DescribedTable<MemoryStepRow>(
             "MEMORY_STEP", "step INTEGER, poolId INTEGER, startNs INTEGER, endNs INTEGER",
             kMemoryStepColumns, ", loop INTEGER") +
         DescribedTable<OperatorMemoryRow>("OPERATOR_MEMORY_TOP", "", kOperatorMemoryColumns) +
         DescribedTable<MemoryCategoryPoint>("MEMORY_CATEGORY", "", kMemoryCategoryColumns) +
         DescribedTable<MemoryTransferRow>("MEMORY_TRANSFER", "step INTEGER",
                                           kMemoryTransferColumns, ", loop INTEGER") +
         DescribedTable<TemporalBreakdownRow>("TEMPORAL_BREAKDOWN",
                                              std::string(kDeviceKeys) + ", input TEXT",
                                              kTemporalBreakdownColumns) +
         DescribedTable<TypeTimeRow>("KERNEL_TYPE_BREAKDOWN", kDeviceKeys,
                                     kKernelTypeBreakdownColumns) +
         DescribedTable<KernelStatsRow>("KERNEL_BREAKDOWN", kDeviceKeys, kKernelBreakdownColumns) +
         DescribedTable<IdleTimeRow>("IDLE_TIME_BREAKDOWN",
                                     std::string(kDeviceKeys) + ", tid INTEGER", kIdleTimeColumns) +
         DescribedTable<LaunchOutlier>("CUDA_LAUNCH_OUTLIER", "launchName TEXT, kernelName TEXT",
                                       kLaunchOutlierColumns);
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
      db, "MEMORY_CATEGORY",
      TableColumns<analysis::MemoryCategoryPoint>(0, analysis::kMemoryCategoryColumns),
      [&](Row& row) {
        while (track < tracks.size() && point == tracks[track].points.size()) {
          ++track;
          point = 0;
        }
        if (track == tracks.size()) return false;
        const auto& [ts, bytes] = tracks[track].points[point++];
        AppendCells<analysis::MemoryCategoryPoint>(row, analysis::kMemoryCategoryColumns,
                                                   {&tracks[track], ts, bytes},
                                                   IsTableColumn<analysis::MemoryCategoryPoint>);
        return true;
      },
      error);
}

// The step of a per-step row, NULL for the whole run's.
Row& StepOrNull(Row& row, const analysis::MemoryTransferRow& t, int64_t value) {
  return t.whole_run ? row.Null() : row.Int(value);
}

// HTA's breakdowns: temporal, kernel type, kernel, idle time.
bool WriteBreakdownRows(sqlite3* db, RowSource& rows, const model::Model& m,
                        const analysis::AnalysisSet& set, std::string* error) {
  const analysis::KernelBreakdownResult& kernels = set.kernel_breakdown;
  return InsertEach(
             db, rows, "TEMPORAL_BREAKDOWN",
             TableColumns<analysis::TemporalBreakdownRow>(3, analysis::kTemporalBreakdownColumns),
             kernels.temporal,
             [&](Row& row, const analysis::TemporalBreakdownRow& t) {
               Process(row, m, t.process).Text(analysis::ActivitySourceName(kernels.source));
               AppendCells<analysis::TemporalBreakdownRow>(
                   row, analysis::kTemporalBreakdownColumns, t,
                   IsTableColumn<analysis::TemporalBreakdownRow>);
             },
             error) &&
         InsertEach(
             db, rows, "KERNEL_TYPE_BREAKDOWN",
             TableColumns<analysis::TypeTimeRow>(2, analysis::kKernelTypeBreakdownColumns),
             kernels.type_time,
             [&](Row& row, const analysis::TypeTimeRow& t) {
               AppendCells<analysis::TypeTimeRow>(Process(row, m, t.process),
                                                  analysis::kKernelTypeBreakdownColumns, t,
                                                  IsTableColumn<analysis::TypeTimeRow>);
             },
             error) &&
         InsertEach(
             db, rows, "KERNEL_BREAKDOWN",
             TableColumns<analysis::KernelStatsRow>(2, analysis::kKernelBreakdownColumns),
             kernels.top_kernels,
             [&](Row& row, const analysis::KernelStatsRow& k) {
               AppendCells<analysis::KernelStatsRow>(Process(row, m, k.process),
                                                     analysis::kKernelBreakdownColumns, k,
                                                     IsTableColumn<analysis::KernelStatsRow>);
             },
             error) &&
         InsertEach(
             db, rows, "IDLE_TIME_BREAKDOWN",
             TableColumns<analysis::IdleTimeRow>(3, analysis::kIdleTimeColumns),
             set.idle_time.lanes,
             [&](Row& row, const analysis::IdleTimeRow& lane) {
               Process(row, m, lane.process).Int(m.threads.tid[lane.thread]);
               AppendCells<analysis::IdleTimeRow>(row, analysis::kIdleTimeColumns, lane,
                                                  IsTableColumn<analysis::IdleTimeRow>);
             },
             error);
}

}  // namespace

bool WriteResourceAnalysisTables(Database& database, const model::Model& m,
                                 const analysis::AnalysisSet& set, std::string* error) {
  sqlite3* db = database.handle();
  RowSource& rows = database.rows();
  const std::string schema = Schema();
  if (sqlite3_exec(db, schema.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("analysis tables: ") + sqlite3_errmsg(db);
    return false;
  }
  const analysis::DataPreparationResult& prep = set.data_preparation;
  const analysis::MemoryAnalysis& memory = set.memory;
  const analysis::KernelBreakdownResult& kernels = set.kernel_breakdown;
  int64_t pool_id = 0;
  const analysis::Columns<analysis::MemoryPool> pool_columns = analysis::kMemoryPoolColumns;
  const auto pool_names = pool_columns.first(analysis::kMemoryPoolTableNameColumns);
  const auto pool_figures = pool_columns.subspan(analysis::kMemoryPoolTableNameColumns);
  return InsertEach(
             db, rows, "DATA_PREPARATION",
             TableColumns<analysis::DataPreparationStep>(3, analysis::kDataPreparationColumns),
             prep.steps,
             [&](Row& row, const analysis::DataPreparationStep& s) {
               row.Int(static_cast<int64_t>(s.step)).Int(m.threads.tid[s.thread]);
               AppendCells<analysis::DataPreparationStep>(
                   row, analysis::kDataPreparationColumns, s,
                   IsTableColumn<analysis::DataPreparationStep>);
               row.Int(s.loop);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_POOL", TableColumns(3, pool_columns), memory.pools,
             [&](Row& row, const analysis::MemoryPool& pool) {
               AppendCells(row.Int(pool_id++), pool_names, pool,
                           IsTableColumn<analysis::MemoryPool>);
               AppendCells(Process(row, m, pool.process), pool_figures, pool,
                           IsTableColumn<analysis::MemoryPool>);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_STEP",
             TableColumns<analysis::MemoryStepRow>(5, analysis::kMemoryStepColumns), memory.steps,
             [&](Row& row, const analysis::MemoryStepRow& s) {
               row.Int(static_cast<int64_t>(s.step)).Int(s.pool).Int(s.begin_ns).Int(s.end_ns);
               AppendCells<analysis::MemoryStepRow>(row, analysis::kMemoryStepColumns, s,
                                                    IsTableColumn<analysis::MemoryStepRow>);
               row.Int(s.loop);
             },
             error) &&
         InsertEach(
             db, rows, "OPERATOR_MEMORY_TOP",
             TableColumns<analysis::OperatorMemoryRow>(0, analysis::kOperatorMemoryColumns),
             memory.top_operators,
             [&](Row& row, const analysis::OperatorMemoryRow& op) {
               AppendCells<analysis::OperatorMemoryRow>(row, analysis::kOperatorMemoryColumns, op,
                                                        IsTableColumn<analysis::OperatorMemoryRow>);
             },
             error) &&
         InsertEach(
             db, rows, "MEMORY_TRANSFER",
             TableColumns<analysis::MemoryTransferRow>(2, analysis::kMemoryTransferColumns),
             memory.transfers,
             [&](Row& row, const analysis::MemoryTransferRow& t) {
               AppendCells<analysis::MemoryTransferRow>(
                   StepOrNull(row, t, static_cast<int64_t>(t.step)),
                   analysis::kMemoryTransferColumns, t, IsTableColumn<analysis::MemoryTransferRow>);
               StepOrNull(row, t, t.loop);
             },
             error) &&
         WriteBreakdownRows(db, rows, m, set, error) &&
         InsertEach(
             db, rows, "CUDA_LAUNCH_OUTLIER",
             TableColumns<analysis::LaunchOutlier>(2, analysis::kLaunchOutlierColumns),
             kernels.launches.largest_delays,
             [&](Row& row, const analysis::LaunchOutlier& o) {
               row.Text(m.Str(m.slices.name[o.launch_slice]));
               row.Text(m.Str(m.slices.name[o.kernel_slice]));
               AppendCells<analysis::LaunchOutlier>(row, analysis::kLaunchOutlierColumns, o,
                                                    IsTableColumn<analysis::LaunchOutlier>);
             },
             error) &&
         WriteCategoryRows(db, rows, memory, error);
}

}  // namespace aiprof::exporter
