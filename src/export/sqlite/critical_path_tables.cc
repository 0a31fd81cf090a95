#include "export/sqlite/critical_path_tables.h"

#include <string>

#include "analysis/critical_path/critical_path_columns.h"
#include "export/analysis/critical_path_files.h"
#include "export/sqlite/column_sql.h"
#include "export/sqlite/database.h"

namespace aiprof::exporter {
namespace {

using analysis::CriticalPathResult;
using analysis::CriticalPathStep;

// A table of the step keys (stepId, step, loop; or stepId alone), the described columns and
// nothing else.
template <typename Row>
std::string TableSql(const char* table, const char* keys, analysis::Columns<Row> columns) {
  std::string sql = std::string("CREATE TABLE ") + table + "(" + keys;
  AppendColumnDefinitions<Row>(sql, columns, IsTableColumn<Row>);
  return sql + ");\n";
}

std::string SchemaSql() {
  constexpr const char* kStepKeys = "stepId INTEGER, step INTEGER, loop INTEGER";
  return "CREATE TABLE ENUM_CRITICAL_PATH_CATEGORY(id INTEGER PRIMARY KEY, name TEXT);\n" +
         TableSql<analysis::CriticalPathStepRow>("CRITICAL_PATH_STEP", kStepKeys,
                                                 analysis::kCriticalPathStepColumns) +
         TableSql<analysis::CriticalPathRank>("CRITICAL_PATH_RANK", kStepKeys,
                                              analysis::kCriticalPathRankColumns) +
         TableSql<analysis::CriticalPathSegmentRow>("CRITICAL_PATH_SEGMENT", "stepId INTEGER",
                                                    analysis::kCriticalPathSegmentColumns) +
         TableSql<analysis::NearCriticalRow>("CRITICAL_PATH_SLACK", kStepKeys,
                                             analysis::kNearCriticalColumns) +
         TableSql<analysis::WhatIfRow>("CRITICAL_PATH_WHAT_IF", kStepKeys,
                                       analysis::kWhatIfColumns);
}

template <typename Row>
int TableColumns(analysis::Columns<Row> columns, int keys) {
  return keys + CountColumns<Row>(columns, IsTableColumn<Row>);
}

// A step's keys: its StepTable row (`step_id`), number and loop; NULL for a whole-run span.
void StepKeys(Row& row, const CriticalPathResult& r, const CriticalPathStep& step,
              uint32_t step_id) {
  if (r.whole_run) {
    row.Null().Null().Null();
  } else {
    row.Int(step_id).Int(static_cast<int64_t>(step.step)).Int(step.loop);
  }
}

// Walks the steps' pieces of one kind (ranks, segments, near-critical slices, what-ifs) in
// order: `count(step)` of them per step, `fill(row, step, i)` writes the i-th of a step.
template <typename Count, typename Fill>
bool InsertPerStep(sqlite3* db, RowSource& rows, const char* table, int columns,
                   const CriticalPathResult& r, Count count, Fill fill, std::string* error) {
  size_t step_index = 0, i = 0;
  return rows.InsertAll(
      db, table, columns,
      [&](Row& row) {
        while (step_index < r.steps.size() && i == count(r.steps[step_index])) {
          ++step_index;
          i = 0;
        }
        if (step_index == r.steps.size()) return false;
        fill(row, r.steps[step_index], static_cast<uint32_t>(i++));
        return true;
      },
      error);
}

bool InsertCategories(sqlite3* db, RowSource& rows, std::string* error) {
  int category = 0;
  return rows.InsertAll(
      db, "ENUM_CRITICAL_PATH_CATEGORY", 2,
      [&](Row& row) {
        if (category == analysis::kPathCategoryCount) return false;
        row.Int(category).Text(
            analysis::PathCategoryName(static_cast<analysis::PathCategory>(category)));
        ++category;
        return true;
      },
      error);
}

}  // namespace

bool WriteCriticalPathTables(Database& database, const model::Model& m,
                             const analysis::AnalysisSet& set, std::string* error) {
  if (!set.critical_path.computed) return true;  // not asked for (AnalysisOptions)
  sqlite3* db = database.handle();
  RowSource& rows = database.rows();
  if (sqlite3_exec(db, SchemaSql().c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("critical path tables: ") + sqlite3_errmsg(db);
    return false;
  }
  const CriticalPathResult& r = set.critical_path;
  using analysis::kCriticalPathRankColumns, analysis::kCriticalPathSegmentColumns,
      analysis::kCriticalPathStepColumns, analysis::kNearCriticalColumns, analysis::kWhatIfColumns;
  const auto one = [](const CriticalPathStep&) -> size_t { return 1; };
  return InsertCategories(db, rows, error) &&
         InsertPerStep(
             db, rows, "CRITICAL_PATH_STEP",
             TableColumns<analysis::CriticalPathStepRow>(kCriticalPathStepColumns, 3), r, one,
             [&](Row& row, const CriticalPathStep& step, uint32_t) {
               StepKeys(row, r, step, step.step_id);
               const std::string thread = CriticalPathThreadLabel(m, step.critical_thread);
               AppendCells<analysis::CriticalPathStepRow>(
                   row, kCriticalPathStepColumns, {step, thread},
                   IsTableColumn<analysis::CriticalPathStepRow>);
             },
             error) &&
         InsertPerStep(
             db, rows, "CRITICAL_PATH_RANK",
             TableColumns<analysis::CriticalPathRank>(kCriticalPathRankColumns, 3), r,
             [](const CriticalPathStep& step) -> size_t { return step.rank_count; },
             [&](Row& row, const CriticalPathStep& step, uint32_t i) {
               const analysis::CriticalPathRank& rank = r.ranks[step.first_rank + i];
               StepKeys(row, r, step, rank.step_id);
               AppendCells<analysis::CriticalPathRank>(row, kCriticalPathRankColumns, rank,
                                                       IsTableColumn<analysis::CriticalPathRank>);
             },
             error) &&
         InsertPerStep(
             db, rows, "CRITICAL_PATH_SEGMENT",
             TableColumns<analysis::CriticalPathSegmentRow>(kCriticalPathSegmentColumns, 1), r,
             [](const CriticalPathStep& step) -> size_t { return step.segment_count; },
             [&](Row& row, const CriticalPathStep& step, uint32_t i) {
               if (r.whole_run) {
                 row.Null();
               } else {
                 row.Int(step.step_id);
               }
               const analysis::CriticalPathSegment s = r.Segment(m, step, step.first_segment + i);
               const std::string thread = CriticalPathThreadLabel(m, s.thread);
               AppendCells<analysis::CriticalPathSegmentRow>(
                   row, kCriticalPathSegmentColumns, {s, CriticalPathSliceName(m, s.slice), thread},
                   IsTableColumn<analysis::CriticalPathSegmentRow>);
             },
             error) &&
         InsertPerStep(
             db, rows, "CRITICAL_PATH_SLACK",
             TableColumns<analysis::NearCriticalRow>(kNearCriticalColumns, 3), r,
             [](const CriticalPathStep& step) -> size_t { return step.near_count; },
             [&](Row& row, const CriticalPathStep& step, uint32_t i) {
               const analysis::NearCriticalSlice& near = r.near_critical[step.first_near + i];
               StepKeys(row, r, step, step.step_id);
               const std::string thread = CriticalPathThreadLabel(m, m.ThreadOfSlice(near.slice));
               AppendCells<analysis::NearCriticalRow>(row, kNearCriticalColumns,
                                                      NearCriticalRowOf(m, near, step, thread),
                                                      IsTableColumn<analysis::NearCriticalRow>);
             },
             error) &&
         InsertPerStep(
             db, rows, "CRITICAL_PATH_WHAT_IF",
             TableColumns<analysis::WhatIfRow>(kWhatIfColumns, 3), r,
             [&](const CriticalPathStep&) { return r.what_ifs.size(); },
             [&](Row& row, const CriticalPathStep& step, uint32_t i) {
               StepKeys(row, r, step, step.step_id);
               AppendCells<analysis::WhatIfRow>(
                   row, kWhatIfColumns,
                   {r.what_ifs[i], step.duration_ns(), step.projected_ns[i], 1},
                   IsTableColumn<analysis::WhatIfRow>);
             },
             error);
}

}  // namespace aiprof::exporter
