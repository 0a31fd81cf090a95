#include "export/sqlite/critical_path_tables.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "export/analysis/critical_path_files.h"
#include "export/sqlite/database.h"

namespace aiprof::exporter {
namespace {

const char* const kSchema = R"sql(
CREATE TABLE ENUM_CRITICAL_PATH_CATEGORY(id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE CRITICAL_PATH_STEP(stepId INTEGER, step INTEGER, loop INTEGER, ranks INTEGER,
                                startNs INTEGER, endNs INTEGER, criticalRank INTEGER,
                                criticalThread TEXT, computeNs INTEGER, commTransitNs INTEGER,
                                commWaitNs INTEGER, hostOverheadNs INTEGER, syncNs INTEGER,
                                dataLoadingNs INTEGER, idleNs INTEGER);
CREATE TABLE CRITICAL_PATH_RANK(stepId INTEGER, step INTEGER, loop INTEGER, rankId INTEGER,
                                startNs INTEGER, endNs INTEGER, computeNs INTEGER,
                                commTransitNs INTEGER, commWaitNs INTEGER,
                                hostOverheadNs INTEGER, syncNs INTEGER, dataLoadingNs INTEGER,
                                idleNs INTEGER, onJobPathNs INTEGER);
CREATE TABLE CRITICAL_PATH_SEGMENT(stepId INTEGER, startNs INTEGER, endNs INTEGER,
                                   category INTEGER, name TEXT, kind TEXT, thread TEXT,
                                   rankId INTEGER);
CREATE TABLE CRITICAL_PATH_SLACK(stepId INTEGER, step INTEGER, loop INTEGER, rankId INTEGER,
                                 name TEXT, category INTEGER, thread TEXT, startNs INTEGER,
                                 endNs INTEGER, slackNs INTEGER);
CREATE TABLE CRITICAL_PATH_WHAT_IF(stepId INTEGER, step INTEGER, loop INTEGER, whatIf TEXT,
                                   kind TEXT, target TEXT, stepNs INTEGER, projectedNs INTEGER);
)sql";

// A step row's id column: the StepTable row, NULL for a whole-run span.
void StepColumns(Row& row, const analysis::CriticalPathResult& r,
                 const analysis::CriticalPathStep& step) {
  if (r.whole_run) {
    row.Null().Null().Null();
  } else {
    row.Int(step.step_id).Int(static_cast<int64_t>(step.step)).Int(step.loop);
  }
}

// Each step's near-critical work, least slack first.
bool InsertSlack(sqlite3* db, RowSource& rows, const model::Model& m,
                 const analysis::CriticalPathResult& r,
                 const std::function<std::string_view(uint32_t)>& label, std::string* error) {
  size_t step_index = 0, near = 0;
  return rows.InsertAll(
      db, "CRITICAL_PATH_SLACK", 10,
      [&](Row& row) {
        while (step_index < r.steps.size() && near == r.steps[step_index].near_count) {
          ++step_index;
          near = 0;
        }
        if (step_index == r.steps.size()) return false;
        const analysis::CriticalPathStep& step = r.steps[step_index];
        const analysis::NearCriticalSlice& slice = r.near_critical[step.first_near + near++];
        const uint32_t thread = m.ThreadOfSlice(slice.slice);
        StepColumns(row, r, step);
        row.Int(m.processes.rank[m.ProcessOfThread(thread)]);
        row.Text(m.Str(m.slices.name[slice.slice])).Int(static_cast<int64_t>(slice.category));
        row.Text(label(thread)).Int(m.slices.ts[slice.slice]).Int(m.slices.end[slice.slice]);
        row.Int(slice.slack_ns);
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
  if (sqlite3_exec(db, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("critical path tables: ") + sqlite3_errmsg(db);
    return false;
  }
  const analysis::CriticalPathResult& r = set.critical_path;
  // Texts the rows point at must outlive the inserts.
  std::map<uint32_t, std::string> thread_labels;
  const auto label = [&](uint32_t thread) -> std::string_view {
    auto [it, inserted] = thread_labels.try_emplace(thread);
    if (inserted) it->second = CriticalPathThreadLabel(m, thread);
    return it->second;
  };
  std::vector<std::string> descriptions;
  for (const analysis::WhatIfSummary& w : r.what_ifs) descriptions.push_back(w.spec.Describe());
  int category = 0;
  bool ok = rows.InsertAll(
      db, "ENUM_CRITICAL_PATH_CATEGORY", 2,
      [&](Row& row) {
        if (category == analysis::kPathCategoryCount) return false;
        row.Int(category).Text(
            analysis::PathCategoryName(static_cast<analysis::PathCategory>(category)));
        ++category;
        return true;
      },
      error);
  size_t next = 0;
  ok = ok && rows.InsertAll(
                 db, "CRITICAL_PATH_STEP", 15,
                 [&](Row& row) {
                   if (next == r.steps.size()) return false;
                   const analysis::CriticalPathStep& step = r.steps[next++];
                   StepColumns(row, r, step);
                   row.Int(step.rank_count).Int(step.begin_ns).Int(step.end_ns);
                   row.Int(step.critical_rank).Text(label(step.critical_thread));
                   for (int64_t ns : step.attribution.ns) row.Int(ns);
                   return true;
                 },
                 error);
  size_t step_index = 0, member = 0;
  ok = ok && rows.InsertAll(
                 db, "CRITICAL_PATH_RANK", 14,
                 [&](Row& row) {
                   while (step_index < r.steps.size() && member == r.steps[step_index].rank_count) {
                     ++step_index;
                     member = 0;
                   }
                   if (step_index == r.steps.size()) return false;
                   const analysis::CriticalPathStep& step = r.steps[step_index];
                   const analysis::CriticalPathRank& rank = r.ranks[step.first_rank + member++];
                   if (r.whole_run) {
                     row.Null().Null().Null();
                   } else {
                     row.Int(rank.step_id).Int(static_cast<int64_t>(step.step)).Int(step.loop);
                   }
                   row.Int(rank.rank).Int(rank.begin_ns).Int(rank.end_ns);
                   for (int64_t ns : rank.own.ns) row.Int(ns);
                   row.Int(rank.on_job_path_ns);
                   return true;
                 },
                 error);
  step_index = 0;
  size_t segment = 0;
  ok = ok &&
       rows.InsertAll(
           db, "CRITICAL_PATH_SEGMENT", 8,
           [&](Row& row) {
             while (step_index < r.steps.size() && segment == r.steps[step_index].segment_count) {
               ++step_index;
               segment = 0;
             }
             if (step_index == r.steps.size()) return false;
             const analysis::CriticalPathStep& step = r.steps[step_index];
             const analysis::CriticalPathSegment s =
                 r.Segment(m, step, step.first_segment + segment++);
             if (r.whole_run) {
               row.Null();
             } else {
               row.Int(step.step_id);
             }
             row.Int(s.begin_ns).Int(s.end_ns).Int(static_cast<int64_t>(s.category));
             row.Text(s.slice == model::kNoRow ? "" : m.Str(m.slices.name[s.slice]));
             row.Text(s.latency ? "latency" : (s.slice == model::kNoRow ? "gap" : "self"));
             row.Text(label(s.thread)).Int(s.rank);
             return true;
           },
           error);
  ok = ok && InsertSlack(db, rows, m, r, label, error);
  step_index = 0;
  size_t what_if = 0;
  ok = ok && rows.InsertAll(
                 db, "CRITICAL_PATH_WHAT_IF", 8,
                 [&](Row& row) {
                   if (what_if == r.what_ifs.size()) {
                     ++step_index;
                     what_if = 0;
                   }
                   if (step_index >= r.steps.size() || r.what_ifs.empty()) return false;
                   const analysis::CriticalPathStep& step = r.steps[step_index];
                   const analysis::WhatIfSpec& spec = r.what_ifs[what_if].spec;
                   StepColumns(row, r, step);
                   row.Text(descriptions[what_if])
                       .Text(analysis::WhatIfKindKey(spec.kind))
                       .Text(spec.name);
                   row.Int(step.duration_ns()).Int(step.projected_ns[what_if++]);
                   return true;
                 },
                 error);
  return ok;
}

}  // namespace aiprof::exporter
