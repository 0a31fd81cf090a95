// The columns of the critical path's results (critical_path.h), read by every writer:
// critical_path_*.csv (export/analysis/critical_path_files.h), the CRITICAL_PATH_* tables
// (export/sqlite/critical_path_tables.h) and the UI API (server/critical_path_api.h, its types
// in web/src/api.ts). A row is the result's piece with what the model names beside it (a
// thread's label, a slice's name), which the writers look up once, the same way
// (exporter::CriticalPathThreadLabel); the step as the user names it and the database's step
// keys are the writers' own, around the described columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/critical_path/critical_path.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis {

// A path's time in each category (CategoryTimes) as columns: the files' header, the UI's key,
// the database's column.
struct PathCategoryColumnNames {
  std::string_view header, key, db_name;
};
// The attribution of a step or a rank's own path: "<category name>(us)", the category's key
// (PathCategoryKey) and "<camelCase key>Ns".
inline constexpr PathCategoryColumnNames kPathCategoryColumnNames[kPathCategoryCount] = {
    {"compute(us)", "compute", "computeNs"},
    {"communication transit(us)", "comm_transit", "commTransitNs"},
    {"communication wait(us)", "comm_wait", "commWaitNs"},
    {"host overhead(us)", "host_overhead", "hostOverheadNs"},
    {"synchronisation(us)", "sync", "syncNs"},
    {"data loading(us)", "data_loading", "dataLoadingNs"},
    {"idle(us)", "idle", "idleNs"},
};

// Category `C`'s column of a row whose PathCategoryTimes(row) is its attribution.
template <typename Row, int C>
constexpr Column<Row> PathCategoryColumn(const PathCategoryColumnNames (&names)[kPathCategoryCount],
                                         ColumnUnit unit, uint8_t writers) {
  return {names[C].header,  names[C].key,
          names[C].db_name, unit,
          writers,          [](const Row& row) { return PathCategoryTimes(row).ns[C]; }};
}

// A step of the job's path.
struct CriticalPathStepRow {
  const CriticalPathStep& step;
  std::string_view critical_thread;  // the critical thread's label
};
inline const CategoryTimes& PathCategoryTimes(const CriticalPathStepRow& row) {
  return row.step.attribution;
}

// critical_path_steps.csv and CRITICAL_PATH_STEP after the step, and the UI's steps; the
// files add a column per standard projection (its description in the header) after these.
template <int C>
constexpr Column<CriticalPathStepRow> StepCategoryColumn() {
  return PathCategoryColumn<CriticalPathStepRow, C>(kPathCategoryColumnNames,
                                                    ColumnUnit::kNanosecondsInteger, kEveryWriter);
}
inline constexpr Column<CriticalPathStepRow> kCriticalPathStepColumns[] = {
    {"Ranks", "ranks", "", ColumnUnit::kCount, kEveryWriter,
     [](const CriticalPathStepRow& r) -> int64_t { return r.step.rank_count; }},
    {"Begin(us)", "begin", "startNs", ColumnUnit::kTimestamp, kEveryWriter,
     [](const CriticalPathStepRow& r) { return r.step.begin_ns; }},
    {"", "end", "endNs", ColumnUnit::kTimestamp, kDatabase,
     [](const CriticalPathStepRow& r) { return r.step.end_ns; }},
    {"Step Time(us)", "duration", "", ColumnUnit::kNanosecondsInteger, kFiles | kUi,
     [](const CriticalPathStepRow& r) { return r.step.duration_ns(); }},
    {"Critical Rank", "critical_rank", "criticalRank", ColumnUnit::kCount, kEveryWriter,
     [](const CriticalPathStepRow& r) -> int64_t { return r.step.critical_rank; }},
    TextColumn<CriticalPathStepRow>(
        "Critical Thread", "critical_thread", "criticalThread", kEveryWriter,
        [](const CriticalPathStepRow& r) { return std::string(r.critical_thread); }),
    StepCategoryColumn<0>(),
    StepCategoryColumn<1>(),
    StepCategoryColumn<2>(),
    StepCategoryColumn<3>(),
    StepCategoryColumn<4>(),
    StepCategoryColumn<5>(),
    StepCategoryColumn<6>(),
};

inline const CategoryTimes& PathCategoryTimes(const CriticalPathRank& rank) {
  return rank.own;
}
// critical_path_ranks.csv and CRITICAL_PATH_RANK after the step: a rank's own path.
template <int C>
constexpr Column<CriticalPathRank> RankCategoryColumn() {
  return PathCategoryColumn<CriticalPathRank, C>(
      kPathCategoryColumnNames, ColumnUnit::kNanosecondsInteger, kFiles | kDatabase);
}
inline constexpr Column<CriticalPathRank> kCriticalPathRankColumns[] = {
    {"Rank", "rank", "rankId", ColumnUnit::kCount, kFiles | kDatabase,
     [](const CriticalPathRank& r) -> int64_t { return r.rank; }},
    {"", "begin", "startNs", ColumnUnit::kTimestamp, kDatabase,
     [](const CriticalPathRank& r) { return r.begin_ns; }},
    {"", "end", "endNs", ColumnUnit::kTimestamp, kDatabase,
     [](const CriticalPathRank& r) { return r.end_ns; }},
    {"Step Time(us)", "duration", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const CriticalPathRank& r) { return r.end_ns - r.begin_ns; }},
    RankCategoryColumn<0>(),
    RankCategoryColumn<1>(),
    RankCategoryColumn<2>(),
    RankCategoryColumn<3>(),
    RankCategoryColumn<4>(),
    RankCategoryColumn<5>(),
    RankCategoryColumn<6>(),
    {"On Job Path(us)", "on_job_path", "onJobPathNs", ColumnUnit::kNanosecondsInteger,
     kFiles | kDatabase, [](const CriticalPathRank& r) { return r.on_job_path_ns; }},
};

// "self" (a slice's self time), "gap" (nothing recorded) or "latency" (an edge's latency).
inline std::string_view SegmentKind(const CriticalPathSegment& segment) {
  return segment.latency ? "latency" : (segment.slice == model::kNoRow ? "gap" : "self");
}

// A piece of the job's path.
struct CriticalPathSegmentRow {
  CriticalPathSegment segment;
  std::string_view name;    // the slice's name; empty for a gap or a latency
  std::string_view thread;  // its thread's label
};

// critical_path_segments.csv and CRITICAL_PATH_SEGMENT after the step, and the UI's pieces of
// a step. The category is a name in the files and its number in the table and the UI
// (ENUM_CRITICAL_PATH_CATEGORY, the UI's `categories`): described twice, once per place.
inline constexpr Column<CriticalPathSegmentRow> kCriticalPathSegmentColumns[] = {
    {"Begin(us)", "begin", "startNs", ColumnUnit::kTimestamp, kEveryWriter,
     [](const CriticalPathSegmentRow& r) { return r.segment.begin_ns; }},
    {"", "end", "endNs", ColumnUnit::kTimestamp, kDatabase,
     [](const CriticalPathSegmentRow& r) { return r.segment.end_ns; }},
    {"Duration(us)", "duration", "", ColumnUnit::kNanosecondsInteger, kFiles | kUi,
     [](const CriticalPathSegmentRow& r) { return r.segment.end_ns - r.segment.begin_ns; }},
    TextColumn<CriticalPathSegmentRow>("Category", "category_name", "", kFiles,
                                       [](const CriticalPathSegmentRow& r) {
                                         return std::string(PathCategoryName(r.segment.category));
                                       }),
    {"", "category", "", ColumnUnit::kCount, kDatabase | kUi,
     [](const CriticalPathSegmentRow& r) -> int64_t {
       return static_cast<int64_t>(r.segment.category);
     }},
    TextColumn<CriticalPathSegmentRow>(
        "Name", "name", "", kEveryWriter,
        [](const CriticalPathSegmentRow& r) { return std::string(r.name); }),
    TextColumn<CriticalPathSegmentRow>(
        "Kind", "kind", "", kEveryWriter,
        [](const CriticalPathSegmentRow& r) { return std::string(SegmentKind(r.segment)); }),
    TextColumn<CriticalPathSegmentRow>(
        "Thread", "thread", "", kEveryWriter,
        [](const CriticalPathSegmentRow& r) { return std::string(r.thread); }),
    {"Rank", "rank", "rankId", ColumnUnit::kCount, kEveryWriter,
     [](const CriticalPathSegmentRow& r) -> int64_t { return r.segment.rank; }},
    // The slice whose self time it is, for the UI's link to the event; null for a gap or a
    // latency.
    {"", "slice", "", ColumnUnit::kCount, kUi,
     [](const CriticalPathSegmentRow& r) -> int64_t {
       return r.segment.slice == model::kNoRow ? -1 : static_cast<int64_t>(r.segment.slice);
     },
     true},
};

// Near-critical work of a step (NearCriticalSlice) with what the model says of its slice.
struct NearCriticalRow {
  const NearCriticalSlice& near;
  int32_t rank = -1;
  std::string_view name;    // the slice's name
  std::string_view thread;  // its thread's label
  int64_t begin_ns = 0;     // the slice's begin and end
  int64_t end_ns = 0;
  int64_t step_ns = 0;  // its step's time
};

// critical_path_slack.csv and CRITICAL_PATH_SLACK after the step: what would be critical
// next, least slack first. The category as in kCriticalPathSegmentColumns.
inline constexpr Column<NearCriticalRow> kNearCriticalColumns[] = {
    {"Rank", "rank", "rankId", ColumnUnit::kCount, kFiles | kDatabase,
     [](const NearCriticalRow& r) -> int64_t { return r.rank; }},
    TextColumn<NearCriticalRow>("Name", "name", "", kFiles | kDatabase,
                                [](const NearCriticalRow& r) { return std::string(r.name); }),
    TextColumn<NearCriticalRow>(
        "Category", "category_name", "", kFiles,
        [](const NearCriticalRow& r) { return std::string(PathCategoryName(r.near.category)); }),
    {"", "category", "", ColumnUnit::kCount, kDatabase,
     [](const NearCriticalRow& r) -> int64_t { return static_cast<int64_t>(r.near.category); }},
    TextColumn<NearCriticalRow>("Thread", "thread", "", kFiles | kDatabase,
                                [](const NearCriticalRow& r) { return std::string(r.thread); }),
    {"Begin(us)", "begin", "startNs", ColumnUnit::kTimestamp, kFiles | kDatabase,
     [](const NearCriticalRow& r) { return r.begin_ns; }},
    {"", "end", "endNs", ColumnUnit::kTimestamp, kDatabase,
     [](const NearCriticalRow& r) { return r.end_ns; }},
    {"Duration(us)", "duration", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const NearCriticalRow& r) { return r.end_ns - r.begin_ns; }},
    {"Slack(us)", "slack", "slackNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const NearCriticalRow& r) { return r.near.slack_ns; }},
    RealColumn<NearCriticalRow>("Slack(%)", "slack_share", "", ColumnUnit::kPercentage, kFiles,
                                [](const NearCriticalRow& r) {
                                  return r.step_ns > 0
                                             ? 100.0 * static_cast<double>(r.near.slack_ns) /
                                                   static_cast<double>(r.step_ns)
                                             : 0.0;
                                }),
};

// A standard projection (WhatIfSummary) over some step time: the run's (its sums, the
// files' and the UI's rows) or one step's (the table's rows, one per step and projection).
struct WhatIfRow {
  const WhatIfSummary& what_if;
  int64_t step_ns = 0;
  int64_t projected_ns = 0;
  uint64_t steps = 0;  // how many steps step_ns covers
};

// critical_path_what_if.csv, CRITICAL_PATH_WHAT_IF after the step, and the UI's `what_ifs`.
inline constexpr Column<WhatIfRow> kWhatIfColumns[] = {
    TextColumn<WhatIfRow>("What-if", "name", "whatIf", kEveryWriter,
                          [](const WhatIfRow& r) { return r.what_if.spec.Describe(); }),
    TextColumn<WhatIfRow>(
        "Kind", "kind", "", kEveryWriter,
        [](const WhatIfRow& r) { return std::string(WhatIfKindKey(r.what_if.spec.kind)); }),
    TextColumn<WhatIfRow>("Target", "target", "", kEveryWriter,
                          [](const WhatIfRow& r) { return r.what_if.spec.name; }),
    {"Applicable", "applicable", "", ColumnUnit::kFlag, kFiles | kUi,
     [](const WhatIfRow& r) -> int64_t { return r.what_if.applicable; }},
    {"Steps", "steps", "", ColumnUnit::kCount, kFiles,
     [](const WhatIfRow& r) { return static_cast<int64_t>(r.steps); }},
    {"Step Time(us)", "step_ns", "stepNs", ColumnUnit::kNanosecondsInteger, kFiles | kDatabase,
     [](const WhatIfRow& r) { return r.step_ns; }},
    {"Projected(us)", "projected_ns", "projectedNs", ColumnUnit::kNanosecondsInteger, kEveryWriter,
     [](const WhatIfRow& r) { return r.projected_ns; }},
    {"Saving(us)", "saving_ns", "", ColumnUnit::kNanosecondsInteger, kFiles,
     [](const WhatIfRow& r) { return r.step_ns - r.projected_ns; }},
    RealColumn<WhatIfRow>(
        "Saving(%)", "saving_share", "", ColumnUnit::kPercentage, kFiles,
        [](const WhatIfRow& r) { return 100.0 * Share(r.step_ns - r.projected_ns, r.step_ns); }),
};

}  // namespace aiprof::analysis
