// The column descriptions of the analysis results (analysis/result_columns.h) beyond
// step_trace_time: msprof's and HTA's published columns in their order
// (/work/shared/reference: ascend-msprof-formats.md §1.8, trace-analysis-and-ui.md §1.3), the
// derived columns computed by their accessors, and the rules every description keeps.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis_set.h"
#include "analysis/cluster/cluster_critical_path.h"
#include "analysis/cluster/cluster_merge.h"
#include "analysis/critical_path/critical_path_columns.h"
#include "analysis/described_cell.h"

namespace aiprof::analysis {
namespace {

using testing::Cell;
using testing::FileHeaders;

template <typename Row>
std::vector<std::string> TableColumns(Columns<Row> columns) {
  std::vector<std::string> names;
  for (const Column<Row>& column : columns) {
    if (column.WrittenBy(kDatabase)) names.emplace_back(column.DatabaseName());
  }
  return names;
}

// Within each writer names are unique, every column has a writer and exactly one accessor,
// and a file column has a header.
template <typename Row>
void ExpectWellFormed(Columns<Row> columns) {
  std::set<std::string_view> headers, keys, db_names, cluster_names;
  for (const Column<Row>& column : columns) {
    EXPECT_NE(column.writers, 0) << column.key;
    const int accessors =
        (column.value != nullptr) + (column.real != nullptr) + (column.text != nullptr);
    EXPECT_EQ(accessors, 1) << column.key;
    EXPECT_EQ(column.text != nullptr, column.unit == ColumnUnit::kText) << column.key;
    if (column.WrittenBy(kFiles)) {
      EXPECT_FALSE(column.header.empty()) << column.key;
      EXPECT_TRUE(headers.insert(column.header).second) << column.header;
    }
    if (column.WrittenBy(kDatabase)) {
      EXPECT_TRUE(db_names.insert(column.DatabaseName()).second) << column.DatabaseName();
    }
    if (column.WrittenBy(kClusterTables)) {
      EXPECT_TRUE(cluster_names.insert(column.DatabaseName()).second) << column.DatabaseName();
    }
    if (column.WrittenBy(kUi)) {
      EXPECT_TRUE(keys.insert(column.key).second) << column.key;
    }
  }
}

template <typename Row>
std::vector<std::string> ClusterTableColumns(Columns<Row> columns) {
  std::vector<std::string> names;
  for (const Column<Row>& column : columns) {
    if (column.WrittenBy(kClusterTables)) names.emplace_back(column.DatabaseName());
  }
  return names;
}

TEST(ResultDescriptionsTest, EveryDescriptionIsWellFormed) {
  ExpectWellFormed<StepParts>(kStepTraceTimeColumns);
  ExpectWellFormed<MemoryStepRow>(kMemoryStepColumns);
  ExpectWellFormed<DataPreparationStep>(kDataPreparationColumns);
  ExpectWellFormed<DataPreparationResult>(kDataPreparationSummaryColumns);
  ExpectWellFormed<MemoryPool>(kMemoryPoolColumns);
  ExpectWellFormed<TemporalBreakdownRow>(kTemporalBreakdownColumns);
  ExpectWellFormed<TypeTimeRow>(kKernelTypeBreakdownColumns);
  ExpectWellFormed<KernelStatsRow>(kKernelBreakdownColumns);
  ExpectWellFormed<IdleTimeRow>(kIdleTimeColumns);
  ExpectWellFormed<AnalysisInputs>(kAnalysisInputsColumns);
  ExpectWellFormed<CommTimeInfo>(kCommTimeColumns);
  ExpectWellFormed<CommBandwidthInfo>(kCommBandwidthColumns);
  ExpectWellFormed<CommMatrixEntry>(kCommMatrixColumns);
  ExpectWellFormed<CommOpTiming>(kCommOpColumns);
  ExpectWellFormed<OperatorMemoryRow>(kOperatorMemoryColumns);
  ExpectWellFormed<MemoryCategoryPoint>(kMemoryCategoryColumns);
  ExpectWellFormed<MemoryTransferRow>(kMemoryTransferColumns);
  ExpectWellFormed<LaunchOutlier>(kLaunchOutlierColumns);
  ExpectWellFormed<LaunchStatistics>(kLaunchStatisticsColumns);
  ExpectWellFormed<CriticalPathStepRow>(kCriticalPathStepColumns);
  ExpectWellFormed<CriticalPathRank>(kCriticalPathRankColumns);
  ExpectWellFormed<CriticalPathSegmentRow>(kCriticalPathSegmentColumns);
  ExpectWellFormed<NearCriticalRow>(kNearCriticalColumns);
  ExpectWellFormed<WhatIfRow>(kWhatIfColumns);
  ExpectWellFormed<cluster::ClusterCriticalStep>(cluster::kClusterCriticalStepColumns);
  ExpectWellFormed<cluster::StepVerdict>(cluster::kStepVerdictColumns);
  ExpectWellFormed<cluster::RankVerdict>(cluster::kRankVerdictColumns);
  ExpectWellFormed<cluster::StageVerdict>(cluster::kStageVerdictColumns);
  ExpectWellFormed<cluster::DivergentStep>(cluster::kDivergentStepColumns);
  ExpectWellFormed<cluster::SlowLink>(cluster::kSlowLinkColumns);
  ExpectWellFormed<cluster::HostClock>(cluster::kHostClockColumns);
  ExpectWellFormed<cluster::RankInfo>(cluster::kRankInfoColumns);
  ExpectWellFormed<cluster::RankInfo>(cluster::kHostInfoColumns);
  ExpectWellFormed<cluster::ClockAlignment>(cluster::kClockAlignmentColumns);
  ExpectWellFormed<cluster::ClusterResult>(cluster::kClusterBaseInfoColumns);
  ExpectWellFormed<cluster::ParallelLayout>(cluster::kParallelLayoutColumns);
}

// msprof-analyze's cluster_analysis.db (/work/shared/reference: ascend-msprof-formats.md §3.1)
// holds the per-rank communication results under its own names and order.
TEST(ResultDescriptionsTest, ClusterTablesKeepMsprofAnalyzesColumnsInOrder) {
  // After step, rank_id, hccl_op_name, group_name (and band_type; src_rank, dst_rank).
  EXPECT_EQ(ClusterTableColumns<CommTimeInfo>(kCommTimeColumns),
            (std::vector<std::string>{"start_timestamp", "elapsed_time", "transit_time",
                                      "wait_time", "synchronization_time", "idle_time",
                                      "synchronization_time_ratio", "wait_time_ratio"}));
  EXPECT_EQ(ClusterTableColumns<CommBandwidthInfo>(kCommBandwidthColumns),
            (std::vector<std::string>{"transit_size", "transit_time", "bandwidth",
                                      "large_packet_ratio"}));
  EXPECT_EQ(
      ClusterTableColumns<CommMatrixEntry>(kCommMatrixColumns),
      (std::vector<std::string>{"transit_size", "transit_time", "bandwidth", "transport_type"}));
}

TEST(ResultDescriptionsTest, ClusterTablesRoundToMsprofAnalyzesDecimals) {
  CellValue bandwidth;
  bandwidth.kind = CellValue::kReal;
  bandwidth.real = 12.345678;
  EXPECT_DOUBLE_EQ(ClusterValue(ColumnUnit::kGigabytesPerSecond, bandwidth), 12.3457);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kGigabytesPerSecond, bandwidth), 12.345678);  // per rank
  EXPECT_DOUBLE_EQ(ClusterValue(ColumnUnit::kMilliseconds, IntegerCell(1'234'567'891)),
                   1234.567891);
  EXPECT_DOUBLE_EQ(ClusterValue(ColumnUnit::kNanoseconds, IntegerCell(1'234'567)), 1234.567);
  CellValue ratio = bandwidth;
  ratio.real = 0.123456;
  EXPECT_DOUBLE_EQ(ClusterValue(ColumnUnit::kRatio, ratio), 0.1235);
  // Rounding a time to the decimals its scale has leaves it as it is: the cluster's values
  // are the per-rank ones wherever both are exact.
  for (int64_t ns : {int64_t{1}, int64_t{999'999}, int64_t{123'456'789'012}}) {
    EXPECT_EQ(ClusterValue(ColumnUnit::kMilliseconds, IntegerCell(ns)),
              RealValue(ColumnUnit::kMilliseconds, IntegerCell(ns)));
    EXPECT_EQ(ClusterValue(ColumnUnit::kNanoseconds, IntegerCell(ns)),
              RealValue(ColumnUnit::kNanoseconds, IntegerCell(ns)));
  }
  EXPECT_EQ(ClusterDecimals(ColumnUnit::kCount), -1);
}

TEST(ResultDescriptionsTest, PathCategoryColumnsFollowTheCategories) {
  for (int c = 0; c < kPathCategoryCount; ++c) {
    const auto category = static_cast<PathCategory>(c);
    EXPECT_EQ(kPathCategoryColumnNames[c].header, std::string(PathCategoryName(category)) + "(us)");
    EXPECT_EQ(kPathCategoryColumnNames[c].key, PathCategoryKey(category));
    EXPECT_EQ(cluster::kOwnPathCategoryColumnNames[c].header,
              "Own " + std::string(PathCategoryName(category)) + "(us)");
    EXPECT_EQ(cluster::kOwnPathCategoryColumnNames[c].key,
              "own_" + std::string(PathCategoryKey(category)));
  }
}

TEST(ResultDescriptionsTest, CriticalPathStepsAndRanksKeepTheirColumns) {
  const std::vector<std::string> categories = {"computeNs",      "commTransitNs", "commWaitNs",
                                               "hostOverheadNs", "syncNs",        "dataLoadingNs",
                                               "idleNs"};
  std::vector<std::string> step = {"ranks", "startNs", "endNs", "criticalRank", "criticalThread"};
  step.insert(step.end(), categories.begin(), categories.end());
  EXPECT_EQ(TableColumns<CriticalPathStepRow>(kCriticalPathStepColumns), step);
  std::vector<std::string> rank = {"rankId", "startNs", "endNs"};
  rank.insert(rank.end(), categories.begin(), categories.end());
  rank.push_back("onJobPathNs");
  EXPECT_EQ(TableColumns<CriticalPathRank>(kCriticalPathRankColumns), rank);
  EXPECT_EQ(FileHeaders<CriticalPathRank>(kCriticalPathRankColumns),
            (std::vector<std::string>{"Rank", "Step Time(us)", "compute(us)",
                                      "communication transit(us)", "communication wait(us)",
                                      "host overhead(us)", "synchronisation(us)",
                                      "data loading(us)", "idle(us)", "On Job Path(us)"}));
  CriticalPathStep path_step;
  path_step.begin_ns = 1'000;
  path_step.end_ns = 4'000;
  path_step.attribution[PathCategory::kSync] = 2'500;
  const CriticalPathStepRow row{path_step, "GPU 0 stream 7"};
  const Columns<CriticalPathStepRow> columns = kCriticalPathStepColumns;
  EXPECT_EQ(Cell(columns, "duration", row).integer, 3'000);
  EXPECT_EQ(Cell(columns, "sync", row).integer, 2'500);
  EXPECT_EQ(Cell(columns, "critical_thread", row).text, "GPU 0 stream 7");
}

TEST(ResultDescriptionsTest, CriticalPathSegmentsSlackAndWhatIfs) {
  EXPECT_EQ(TableColumns<CriticalPathSegmentRow>(kCriticalPathSegmentColumns),
            (std::vector<std::string>{"startNs", "endNs", "category", "name", "kind", "thread",
                                      "rankId"}));
  EXPECT_EQ(FileHeaders<CriticalPathSegmentRow>(kCriticalPathSegmentColumns),
            (std::vector<std::string>{"Begin(us)", "Duration(us)", "Category", "Name", "Kind",
                                      "Thread", "Rank"}));
  CriticalPathSegment gap;
  gap.category = PathCategory::kIdle;
  const Columns<CriticalPathSegmentRow> segments = kCriticalPathSegmentColumns;
  EXPECT_EQ(Cell(segments, "kind", CriticalPathSegmentRow{gap, "", "t"}).text, "gap");
  EXPECT_EQ(Cell(segments, "category_name", CriticalPathSegmentRow{gap, "", "t"}).text, "idle");
  EXPECT_EQ(Cell(segments, "category", CriticalPathSegmentRow{gap, "", "t"}).integer, 6);
  EXPECT_EQ(Cell(segments, "slice", CriticalPathSegmentRow{gap, "", "t"}).kind,
            CellValue::kNull);  // a gap is nobody's time
  gap.latency = true;
  EXPECT_EQ(Cell(segments, "kind", CriticalPathSegmentRow{gap, "", "t"}).text, "latency");

  EXPECT_EQ(TableColumns<NearCriticalRow>(kNearCriticalColumns),
            (std::vector<std::string>{"rankId", "name", "category", "thread", "startNs", "endNs",
                                      "slackNs"}));
  NearCriticalSlice near;
  near.slack_ns = 250;
  const NearCriticalRow slack{near, 1, "aten::mm", "python 1/1", 100, 300, 1'000};
  const CellValue share = Cell<NearCriticalRow>(kNearCriticalColumns, "slack_share", slack);
  EXPECT_DOUBLE_EQ(share.real, 25.0);  // a percentage, written with 2 decimals
  EXPECT_EQ(Cell<NearCriticalRow>(kNearCriticalColumns, "duration", slack).integer, 200);

  EXPECT_EQ(TableColumns<WhatIfRow>(kWhatIfColumns),
            (std::vector<std::string>{"whatIf", "kind", "target", "stepNs", "projectedNs"}));
  WhatIfSummary what_if;
  what_if.spec.kind = WhatIfKind::kDataLoadingFree;
  const WhatIfRow run{what_if, 1'000, 800, 4};
  EXPECT_EQ(Cell<WhatIfRow>(kWhatIfColumns, "saving_ns", run).integer, 200);
  EXPECT_DOUBLE_EQ(Cell<WhatIfRow>(kWhatIfColumns, "saving_share", run).real, 20.0);
  EXPECT_EQ(Cell<WhatIfRow>(kWhatIfColumns, "kind", run).text, "data_loading_free");
  const WhatIfRow nothing{what_if, 0, 0, 0};
  EXPECT_DOUBLE_EQ(Cell<WhatIfRow>(kWhatIfColumns, "saving_share", nothing).real, 0.0);
}

TEST(ResultDescriptionsTest, ClusterCriticalPathKeepsItsColumns) {
  std::vector<std::string> table = {"ranks",      "step_time",        "critical_rank",
                                    "on_path",    "gated_operations", "gate",
                                    "peers_wait", "last_rank"};
  for (int c = 0; c < kPathCategoryCount; ++c) {
    table.push_back("own_" + std::string(PathCategoryKey(static_cast<PathCategory>(c))));
  }
  EXPECT_EQ(TableColumns<cluster::ClusterCriticalStep>(cluster::kClusterCriticalStepColumns),
            table);
  for (const auto& column : cluster::kClusterCriticalStepColumns) {
    if (column.key.starts_with("own_") || column.key == "on_path") {
      EXPECT_EQ(column.DatabaseType(), "REAL") << column.key;  // µs
    }
  }
}

// operator_memory_top.csv (with the pool's name after Name, written by the writer) and
// OPERATOR_MEMORY_TOP (the pool's index in the description).
TEST(ResultDescriptionsTest, OperatorMemoryTopKeepsItsColumns) {
  EXPECT_EQ(FileHeaders<OperatorMemoryRow>(kOperatorMemoryColumns),
            (std::vector<std::string>{"Name", "Allocations", "Allocated(B)", "Max Allocation(B)",
                                      "Freed(B)"}));
  EXPECT_EQ(TableColumns<OperatorMemoryRow>(kOperatorMemoryColumns),
            (std::vector<std::string>{"name", "poolId", "allocations", "allocatedBytes",
                                      "maxAllocation", "freedBytes"}));
  EXPECT_EQ(kOperatorMemoryFileNameColumns, 1u);
  OperatorMemoryRow op;
  op.name = "aten::empty";
  op.pool = 2;
  op.allocations = 3;
  op.freed_bytes = 512;
  EXPECT_EQ(Cell<OperatorMemoryRow>(kOperatorMemoryColumns, "pool", op).integer, 2);
  EXPECT_EQ(Cell<OperatorMemoryRow>(kOperatorMemoryColumns, "allocations", op).integer, 3);
  EXPECT_EQ(Cell<OperatorMemoryRow>(kOperatorMemoryColumns, "freed_bytes", op).integer, 512);
  EXPECT_EQ(kOperatorMemoryColumns[0].DatabaseType(), "TEXT");
  EXPECT_EQ(kOperatorMemoryColumns[1].UiType(), "number");
}

// One row per point of a track: the track's pool and category, the point's time and bytes.
TEST(ResultDescriptionsTest, MemoryCategoryPointsReadTheirTrack) {
  EXPECT_EQ(FileHeaders<MemoryCategoryPoint>(kMemoryCategoryColumns),
            (std::vector<std::string>{"Category", "Time(us)", "Bytes"}));
  EXPECT_EQ(TableColumns<MemoryCategoryPoint>(kMemoryCategoryColumns),
            (std::vector<std::string>{"poolId", "category", "timestampNs", "bytes"}));
  MemoryCategoryTrack track;
  track.pool = 1;
  track.category = MemoryCategory::kActivation;
  track.peak = 4096;
  const MemoryCategoryPoint point{&track, 1'500, 2048};
  const Columns<MemoryCategoryPoint> columns = kMemoryCategoryColumns;
  EXPECT_EQ(Cell(columns, "category", point).text, MemoryCategoryName(track.category));
  EXPECT_EQ(Cell(columns, "pool", point).integer, 1);
  EXPECT_EQ(Cell(columns, "peak", point).integer, 4096);
  EXPECT_EQ(Cell(columns, "ts", point).integer, 1'500);
  EXPECT_EQ(Cell(columns, "bytes", point).integer, 2048);
  EXPECT_EQ(kMemoryCategoryColumns[3].DatabaseType(), "INTEGER");  // timestampNs: ns
}

TEST(ResultDescriptionsTest, MemoryTransfersKeepTheirColumns) {
  EXPECT_EQ(FileHeaders<MemoryTransferRow>(kMemoryTransferColumns),
            (std::vector<std::string>{"Kind", "Count", "Bytes", "Time(us)"}));
  EXPECT_EQ(TableColumns<MemoryTransferRow>(kMemoryTransferColumns),
            (std::vector<std::string>{"kind", "count", "bytes", "durationNs"}));
  MemoryTransferRow row;
  row.kind = "Memcpy HtoD";
  row.time_ns = 2'500;
  EXPECT_EQ(Cell<MemoryTransferRow>(kMemoryTransferColumns, "kind", row).text, "Memcpy HtoD");
  EXPECT_EQ(Cell<MemoryTransferRow>(kMemoryTransferColumns, "duration", row).integer, 2'500);
  EXPECT_EQ(kMemoryTransferColumns[3].DatabaseType(), "INTEGER");
}

TEST(ResultDescriptionsTest, LaunchStatisticsDeriveTheMeanDelay) {
  EXPECT_EQ(FileHeaders<LaunchStatistics>(kLaunchStatisticsColumns),
            (std::vector<std::string>{"Launches", "Short Kernels", "Runtime Outliers",
                                      "Launch Delay Outliers", "Mean Launch Delay(us)",
                                      "Max Launch Delay(us)"}));
  LaunchStatistics stats;
  const Columns<LaunchStatistics> columns = kLaunchStatisticsColumns;
  EXPECT_EQ(Cell(columns, "mean_launch_delay", stats).integer, 0);  // no launches: 0
  stats.launches = 3;
  stats.total_launch_delay_ns = 1'000;
  EXPECT_EQ(Cell(columns, "mean_launch_delay", stats).integer, 333);  // whole ns
  EXPECT_EQ(FileHeaders<LaunchOutlier>(kLaunchOutlierColumns),
            (std::vector<std::string>{"Launch Start(us)", "cpu_duration(us)", "gpu_duration(us)",
                                      "launch_delay(us)"}));
  EXPECT_EQ(TableColumns<LaunchOutlier>(kLaunchOutlierColumns),
            (std::vector<std::string>{"launchStartNs", "kernelStartNs", "cpuDurationNs",
                                      "gpuDurationNs", "launchDelayNs"}));
}

// The UI's operation: its own columns and its times, the start from the run's origin while
// the files and tables keep msprof's µs.
TEST(ResultDescriptionsTest, CommunicationOperationsForTheUi) {
  CommOpTiming op;
  op.name = "gloo_allreduce_1";
  op.time.start_ns = 2'000'500;
  EXPECT_EQ(Cell<CommOpTiming>(kCommOpColumns, "bytes", op).kind, CellValue::kNull);  // unknown
  op.bytes = 4096;
  EXPECT_EQ(Cell<CommOpTiming>(kCommOpColumns, "bytes", op).integer, 4096);
  EXPECT_EQ(Cell<CommOpTiming>(kCommOpColumns, "wait_source", op).text, "not measured");
  const Column<CommTimeInfo>& start = kCommTimeColumns[0];
  EXPECT_EQ(start.key, "start");
  EXPECT_TRUE(IsTimestamp(start.unit));
  EXPECT_EQ(start.DatabaseType(), "REAL");
  EXPECT_DOUBLE_EQ(RealValue(start.unit, start.Read(op.time)), 2'000.5);  // µs
  for (const auto& column : kCommMatrixColumns) {
    EXPECT_EQ(column.WrittenBy(kFiles), column.WrittenBy(kDatabase)) << column.key;
  }
}

TEST(ResultDescriptionsTest, CommunicationFilesKeepMsprofsKeysInOrder) {
  EXPECT_EQ(FileHeaders<CommTimeInfo>(kCommTimeColumns),
            (std::vector<std::string>{"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)",
                                      "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)",
                                      "Wait Time Ratio", "Synchronization Time Ratio"}));
  EXPECT_EQ(FileHeaders<CommBandwidthInfo>(kCommBandwidthColumns),
            (std::vector<std::string>{"Transit Time(ms)", "Transit Size(MB)", "Bandwidth(GB/s)",
                                      "Large Packet Ratio"}));
  EXPECT_EQ(FileHeaders<CommMatrixEntry>(kCommMatrixColumns),
            (std::vector<std::string>{"Transport Type", "Transit Size(MB)", "Transit Time(ms)",
                                      "Bandwidth(GB/s)"}));
}

TEST(ResultDescriptionsTest, CommAnalyzerTablesKeepMsprofsColumnsInOrder) {
  // After hccl_op_name, group_name (and transport_type, src_rank, dst_rank), as msprof's.
  EXPECT_EQ(TableColumns<CommTimeInfo>(kCommTimeColumns),
            (std::vector<std::string>{"start_timestamp", "elapse_time", "transit_time", "wait_time",
                                      "synchronization_time", "idle_time",
                                      "synchronization_time_ratio", "wait_time_ratio"}));
  EXPECT_EQ(TableColumns<CommBandwidthInfo>(kCommBandwidthColumns),
            (std::vector<std::string>{"transit_size", "transit_time", "bandwidth",
                                      "large_packet_ratio"}));
  EXPECT_EQ(
      TableColumns<CommMatrixEntry>(kCommMatrixColumns),
      (std::vector<std::string>{"transport_type", "transit_size", "transit_time", "bandwidth"}));
  for (const auto& column : kCommTimeColumns) EXPECT_EQ(column.DatabaseType(), "REAL");
  EXPECT_EQ(kCommMatrixColumns[0].DatabaseType(), "TEXT");
}

TEST(ResultDescriptionsTest, TemporalBreakdownKeepsHtasColumns) {
  EXPECT_EQ(FileHeaders<TemporalBreakdownRow>(kTemporalBreakdownColumns),
            (std::vector<std::string>{"idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                      "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
                                      "non_compute_time_pctg"}));
  TemporalBreakdownRow row;
  row.span_ns = 300;
  row.idle_ns = 100;
  row.compute_ns = 150;
  row.non_compute_ns = 50;
  const CellValue idle = Cell<TemporalBreakdownRow>(kTemporalBreakdownColumns, "idle_share", row);
  ASSERT_EQ(idle.kind, CellValue::kReal);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kPercent, idle), 33.33);  // 4 decimals, then %
  EXPECT_EQ(TableColumns<TemporalBreakdownRow>(kTemporalBreakdownColumns),
            (std::vector<std::string>{"idleNs", "computeNs", "nonComputeNs", "kernelNs"}));
}

TEST(ResultDescriptionsTest, KernelBreakdownsDeriveTheirShares) {
  TypeTimeRow type;
  type.time_ns = 25;
  type.process_time_ns = 200;
  const CellValue share = Cell<TypeTimeRow>(kKernelTypeBreakdownColumns, "percentage", type);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kPercent, share), 12.5);
  type.process_time_ns = 0;  // no whole: 0, not a division by zero
  EXPECT_DOUBLE_EQ(Cell<TypeTimeRow>(kKernelTypeBreakdownColumns, "percentage", type).real, 0.0);
  EXPECT_EQ(FileHeaders<KernelStatsRow>(kKernelBreakdownColumns),
            (std::vector<std::string>{"kernel_type", "name", "count", "sum(us)", "max(us)",
                                      "min(us)", "mean(us)", "std(us)"}));
  KernelStatsRow kernel;
  kernel.type = ActivityType::kCommunication;
  kernel.mean_ns = 12.5;
  EXPECT_EQ(Cell<KernelStatsRow>(kKernelBreakdownColumns, "kernel_type", kernel).text,
            "COMMUNICATION");
  EXPECT_EQ(kKernelBreakdownColumns[6].DatabaseType(), "REAL");     // meanNs, ns as a real
  EXPECT_EQ(kKernelBreakdownColumns[3].DatabaseType(), "INTEGER");  // sumNs
}

TEST(ResultDescriptionsTest, IdleTimeRatiosAreSharesOfTheIdleTime) {
  IdleTimeRow lane;
  lane.host_wait_ns = 30;
  lane.kernel_wait_ns = 60;
  lane.other_ns = 10;
  lane.has_launches = true;
  EXPECT_EQ(Cell<IdleTimeRow>(kIdleTimeColumns, "idle", lane).integer, 100);
  EXPECT_DOUBLE_EQ(Cell<IdleTimeRow>(kIdleTimeColumns, "kernel_wait_ratio", lane).real, 0.6);
  EXPECT_EQ(Cell<IdleTimeRow>(kIdleTimeColumns, "launches_known", lane).integer, 1);
  EXPECT_EQ(TableColumns<IdleTimeRow>(kIdleTimeColumns),
            (std::vector<std::string>{"busyNs", "hostWaitNs", "kernelWaitNs", "otherNs",
                                      "hostWaitIntervals", "kernelWaitIntervals", "otherIntervals",
                                      "launchesKnown"}));
}

TEST(ResultDescriptionsTest, DataPreparationQueueIsUnknownWithoutLoaderRanges) {
  DataPreparationStep step;
  step.begin_ns = 1000;
  step.end_ns = 1400;
  step.wait_ns = 100;
  step.queue_empty = true;
  EXPECT_EQ(Cell<DataPreparationStep>(kDataPreparationColumns, "queue_empty", step).kind,
            CellValue::kNull);
  step.queue_known = true;
  EXPECT_EQ(Cell<DataPreparationStep>(kDataPreparationColumns, "queue_empty", step).integer, 1);
  EXPECT_EQ(Cell<DataPreparationStep>(kDataPreparationColumns, "duration", step).integer, 400);
  EXPECT_DOUBLE_EQ(Cell<DataPreparationStep>(kDataPreparationColumns, "wait_share", step).real,
                   0.25);
  EXPECT_EQ(Cell<DataPreparationStep>(kDataPreparationColumns, "wait_slice", step).kind,
            CellValue::kNull);  // the step did not wait in a range
  EXPECT_EQ(FileHeaders<DataPreparationStep>(kDataPreparationColumns),
            (std::vector<std::string>{"Step Time(us)", "Data Wait(us)", "Data Wait Ratio", "Waits",
                                      "Loader Busy(us)", "Queue Empty"}));
  EXPECT_EQ(TableColumns<DataPreparationStep>(kDataPreparationColumns),
            (std::vector<std::string>{"startNs", "endNs", "dataWaitNs", "waits", "loaderBusyNs",
                                      "queueEmpty"}));
}

TEST(ResultDescriptionsTest, DataPreparationSummaryCountsEmptyQueuesOnlyWithTheQueueView) {
  DataPreparationResult result;
  result.total_step_ns = 800;
  result.total_wait_ns = 200;
  const Columns<DataPreparationResult> columns = kDataPreparationSummaryColumns;
  EXPECT_EQ(Cell(columns, "empty_queue_steps", result).kind, CellValue::kNull);  // N/A
  result.has_queue_view = true;
  result.empty_queue_steps = 2;
  EXPECT_EQ(Cell(columns, "empty_queue_steps", result).integer, 2);
  EXPECT_DOUBLE_EQ(Cell(columns, "wait_share", result).real, 0.25);
}

TEST(ResultDescriptionsTest, MemoryPoolAndInputsColumns) {
  MemoryPool pool;
  pool.name = "CUDA:0";
  pool.source = MemoryPoolSource::kFrameworkAllocator;
  EXPECT_EQ(Cell<MemoryPool>(kMemoryPoolColumns, "peak_reserved", pool).kind, CellValue::kNull);
  EXPECT_EQ(Cell<MemoryPool>(kMemoryPoolColumns, "name", pool).text, "CUDA:0");
  EXPECT_EQ(kMemoryPoolColumns[0].DatabaseType(), "TEXT");
  EXPECT_EQ(TableColumns<MemoryPool>(kMemoryPoolColumns),
            (std::vector<std::string>{"name", "source", "peakAllocated", "peakAllocatedNs",
                                      "peakReserved"}));
  AnalysisInputs inputs;
  EXPECT_EQ(Cell<AnalysisInputs>(kAnalysisInputsColumns, "ranks", inputs).kind,
            CellValue::kNull);  // a single process: N/A
  inputs.ranks = {0, 3};
  EXPECT_EQ(Cell<AnalysisInputs>(kAnalysisInputsColumns, "ranks", inputs).text, "0 3");
  EXPECT_EQ(FileHeaders<AnalysisInputs>(kAnalysisInputsColumns),
            (std::vector<std::string>{"Run Type", "Compute Input", "Step Source", "Steps",
                                      "Devices", "Host Processes", "Ranks", "Communication Ops",
                                      "Dropped Records", "Description"}));
}

TEST(ResultDescriptionsTest, UnitsAsFilesAndTablesHoldThem) {
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kMilliseconds, IntegerCell(2'500'000)), 2.5);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kNanoseconds, IntegerCell(1'500)), 1.5);
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kRatio, IntegerCell(0)), 0.0);
  CellValue share;
  share.kind = CellValue::kReal;
  share.real = 1.0 / 3.0;
  EXPECT_DOUBLE_EQ(RealValue(ColumnUnit::kRatio, share), 0.3333);
  EXPECT_TRUE(HeldAsReal(ColumnUnit::kMilliseconds));
  EXPECT_FALSE(HeldAsReal(ColumnUnit::kNanosecondsInteger));
  EXPECT_FALSE(HeldAsReal(ColumnUnit::kTimestamp));
  EXPECT_TRUE(HeldAsReal(ColumnUnit::kPercentage));
  EXPECT_TRUE(HeldAsReal(ColumnUnit::kGigabytesPerSecond));
}

}  // namespace
}  // namespace aiprof::analysis
