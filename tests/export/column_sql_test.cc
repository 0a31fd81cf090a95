// The SQLite side of the column descriptions (export/sqlite/column_sql.h): a table's column
// definitions and its cells come from one description, the export's tables and
// msprof-analyze's cluster tables each from the columns and spelling they publish.
#include "export/sqlite/column_sql.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/communication_analysis.h"
#include "analysis/critical_path/critical_path_columns.h"

namespace aiprof::exporter {
namespace {

// Records the cells a writer appends, as "kind:value".
struct Recorder {
  std::vector<std::string> cells;
  Recorder& Int(int64_t value) { return Add("int:" + std::to_string(value)); }
  Recorder& Real(double value) {
    char text[64];
    std::snprintf(text, sizeof(text), "real:%.17g", value);
    return Add(text);
  }
  Recorder& Null() { return Add("null"); }
  Recorder& OwnedText(std::string text) { return Add("text:" + text); }
  Recorder& Add(std::string cell) {
    cells.push_back(std::move(cell));
    return *this;
  }
};

TEST(ColumnSqlTest, DefinitionsComeFromTheDescription) {
  std::string sql = "CREATE TABLE CRITICAL_PATH_SEGMENT(stepId INTEGER";
  AppendColumnDefinitions<analysis::CriticalPathSegmentRow>(
      sql, analysis::kCriticalPathSegmentColumns, IsTableColumn<analysis::CriticalPathSegmentRow>);
  EXPECT_EQ(sql,
            "CREATE TABLE CRITICAL_PATH_SEGMENT(stepId INTEGER, startNs INTEGER, endNs INTEGER, "
            "category INTEGER, name TEXT, kind TEXT, thread TEXT, rankId INTEGER");
  std::vector<std::string> cluster = {"step TEXT"};
  AppendColumnDefinitions<analysis::CommMatrixEntry>(
      cluster, analysis::kCommMatrixColumns, IsClusterTableColumn<analysis::CommMatrixEntry>);
  EXPECT_EQ(cluster,
            (std::vector<std::string>{"step TEXT", "transit_size REAL", "transit_time REAL",
                                      "bandwidth REAL", "transport_type TEXT"}));
  EXPECT_EQ(CountColumns<analysis::WhatIfRow>(analysis::kWhatIfColumns,
                                              IsTableColumn<analysis::WhatIfRow>),
            5);
}

TEST(ColumnSqlTest, ClusterCellsAreRoundedAndTheExportsAreNot) {
  analysis::CommMatrixEntry link;
  link.transport = analysis::TransportType::kInterHost;
  link.bytes = 3'000'000;
  link.transit_ns = 7'000'000;  // 3 MB in 7 ms: 0.428571... GB/s
  Recorder exported;
  AppendCells<analysis::CommMatrixEntry>(exported, analysis::kCommMatrixColumns, link,
                                         IsTableColumn<analysis::CommMatrixEntry>);
  EXPECT_EQ(exported.cells, (std::vector<std::string>{"text:INTER_HOST", "real:3", "real:7",
                                                      "real:0.42857142857142855"}));
  Recorder cluster;
  AppendClusterCells<analysis::CommMatrixEntry>(cluster, analysis::kCommMatrixColumns, link,
                                                IsClusterTableColumn<analysis::CommMatrixEntry>);
  EXPECT_EQ(cluster.cells, (std::vector<std::string>{"real:3", "real:7", "real:0.42859999999999998",
                                                     "text:INTER_HOST"}));
}

TEST(ColumnSqlTest, TimestampsAndDurationsStayIntegerNanoseconds) {
  analysis::CriticalPathSegment piece;
  piece.begin_ns = 1'500;
  piece.end_ns = 2'000;
  piece.rank = -1;
  Recorder row;
  AppendCells<analysis::CriticalPathSegmentRow>(
      row, analysis::kCriticalPathSegmentColumns,
      analysis::CriticalPathSegmentRow{piece, "", "all ranks"},
      IsTableColumn<analysis::CriticalPathSegmentRow>);
  EXPECT_EQ(row.cells, (std::vector<std::string>{"int:1500", "int:2000", "int:6",
                                                 "text:", "text:gap", "text:all ranks", "int:-1"}));
}

}  // namespace
}  // namespace aiprof::exporter
