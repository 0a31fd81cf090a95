#include <sqlite3.h>

#include <algorithm>

#include "analysis/analysis_set.h"
#include "export/export_job.h"
#include "export/sqlite/database.h"
#include "export/sqlite/sqlite_exporter.h"
#include "export_fixture.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof::exporter {
namespace {

class SqliteTest : public ExportFixture {
 protected:
  void SetUp() override {
    ExportFixture::SetUp();
    ExportOptions options;
    options.output = prof_;
    options.type = ExportType::kDb;
    options.timestamp = "20260101000000";
    std::ostringstream out, err;
    ASSERT_EQ(RunExport(options, out, err).exit_code, 0) << err.str();
    std::string path = prof_ + "/aiprof_20260101000000.db";
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  void TearDown() override {
    sqlite3_close(db_);
    ExportFixture::TearDown();
  }
  // First column of every row, as text.
  std::vector<std::string> Column(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
    std::vector<std::string> values;
    while (statement && sqlite3_step(statement) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(statement, 0);
      values.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    sqlite3_finalize(statement);
    return values;
  }
  sqlite3* db_ = nullptr;
};

TEST_F(SqliteTest, RowsByValue) {
  EXPECT_EQ(Column("SELECT value FROM META_DATA WHERE name='DROPPED_EVENTS'"),
            std::vector<std::string>{"3"});
  EXPECT_EQ(Column("SELECT hostName FROM HOST_INFO"), std::vector<std::string>{"node1"});
  // The golden data holds only marker ranges and steps, which have their own tables.
  EXPECT_EQ(Column("SELECT count(*) FROM API"), std::vector<std::string>{"0"});
  EXPECT_EQ(
      Column("SELECT label || '@' || (startNs - " + std::to_string(testing::GoldenRealtime(0)) +
             ") || '+' || (endNs - startNs)"
             " FROM (SELECT startNs, endNs, (SELECT value FROM STRING_IDS WHERE id = message)"
             " AS label FROM MSTX_EVENTS WHERE eventType > 0"
             " UNION ALL SELECT startNs, endNs, 'ProfilerStep#' || id FROM STEP_TIME)"
             " ORDER BY startNs, label"),
      (std::vector<std::string>{"ProfilerStep#1@1000+1000", "forward@1100+400", "matmul@1200+100",
                                "async@1700+800", "ProfilerStep#2@2000+1000", "forward@2100+300",
                                "matmul@2150+200", "load@2600+400"}));
  EXPECT_EQ(Column("SELECT tid || ':' || s.value FROM THREADS t JOIN STRING_IDS s ON s.id = t.name"
                   " ORDER BY tid"),
            (std::vector<std::string>{"101:main", "102:worker"}));
  EXPECT_EQ(Column("SELECT globalTid FROM THREADS WHERE tid = 101"),
            std::vector<std::string>{std::to_string((int64_t{testing::kGoldenPid} << 32) | 101)});
  EXPECT_EQ(Column("SELECT id || ':' || (fpStartNs - startNs) || ':' || (bpEndNs - startNs)"
                   " FROM STEP_TIME ORDER BY id"),
            (std::vector<std::string>{"1:100:500", "2:100:400"}));
  EXPECT_EQ(Column("SELECT count(*) FROM MSTX_EVENTS"), std::vector<std::string>{"7"});
  EXPECT_EQ(Column("SELECT eventType FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message"
                   " WHERE s.value = 'async'"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(Column("SELECT c.value FROM COUNTERS c JOIN COUNTER_SERIES s ON s.id = c.seriesId"
                   " JOIN STRING_IDS n ON n.id = s.name WHERE n.value = 'cpu_usage'"
                   " ORDER BY timestampNs"),
            (std::vector<std::string>{"50.0", "75.0"}));
  EXPECT_EQ(Column("SELECT count FROM DROPS"), std::vector<std::string>{"3"});
  EXPECT_EQ(Column("SELECT count(*) FROM sqlite_master WHERE type = 'index'"),
            std::vector<std::string>{"7"});
  // The CPU sampling tables exist, empty, in a profile without samples.
  EXPECT_EQ(Column("SELECT count(*) FROM CPU_SAMPLES"), std::vector<std::string>{"0"});
  EXPECT_EQ(Column("SELECT count(*) FROM STACKS"), std::vector<std::string>{"0"});
  EXPECT_EQ(Column("SELECT count(*) FROM THREAD_STATES"), std::vector<std::string>{"0"});
}

TEST(SqliteApiTest, FrameworkOperatorsAreApiRows) {
  model::Model m = CpuOpModel();
  std::string path = ::testing::TempDir() + "/aiprof_api_" + std::to_string(getpid()) + ".db";
  std::string error;
  ASSERT_TRUE(WriteSqlite(m, path, &error)) << error;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT s.value, a.startNs, a.endNs, a.globalTid, a.depth FROM API a"
                               " JOIN STRING_IDS s ON s.id = a.name ORDER BY a.startNs",
                               -1, &statement, nullptr),
            SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    std::string row = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    for (int c = 1; c < 5; ++c) row += " " + std::to_string(sqlite3_column_int64(statement, c));
    rows.push_back(row);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  std::filesystem::remove(path);
  int64_t tid = (int64_t{7} << 32) | 70;
  EXPECT_EQ(rows, (std::vector<std::string>{"aten::mm 1000 1100 " + std::to_string(tid) + " 0",
                                            "aten::mm 1200 1500 " + std::to_string(tid) + " 0",
                                            "aten::add 1600 1650 " + std::to_string(tid) + " 0"}));
}

// What `sqlite3 .dump` shows: the schema in creation order, then each table's rows in
// their stored order, each cell as SQLite's quote() writes it.
std::string Dump(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto rows = [db](const std::string& sql) {
    std::vector<std::string> lines;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
    while (statement && sqlite3_step(statement) == SQLITE_ROW) {
      std::string line;
      for (int c = 0; c < sqlite3_column_count(statement); ++c) {
        const unsigned char* text = sqlite3_column_text(statement, c);
        line += std::string(c ? "|" : "") + (text ? reinterpret_cast<const char*>(text) : "");
      }
      lines.push_back(line);
    }
    sqlite3_finalize(statement);
    return lines;
  };
  std::string dump;
  for (const std::string& line :
       rows("SELECT type || ' ' || name || ' ' || sql FROM sqlite_schema ORDER BY rowid")) {
    dump += line + "\n";
  }
  for (const std::string& table :
       rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rowid")) {
    std::string columns;
    for (const std::string& column : rows("SELECT name FROM pragma_table_info('" + table + "')")) {
      columns += (columns.empty() ? "quote(\"" : " || '|' || quote(\"") + column + "\")";
    }
    for (const std::string& line : rows("SELECT " + columns + " FROM \"" + table + "\"")) {
      dump += table + ": " + line + "\n";
    }
  }
  sqlite3_close(db);
  return dump;
}

// PRAGMA integrity_check's answer for the database at `path` ("ok": every index holds
// exactly its table's entries), and the table MstxStartIndex is on.
std::string IntegrityAndMstxIndexTable(const std::string& path) {
  Database db;
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(db.Open(path, Database::Mode::kUpdate));
  EXPECT_TRUE(db.TextRows("PRAGMA integrity_check", {}, &rows)) << db.error();
  EXPECT_TRUE(
      db.TextRows("SELECT tbl_name FROM sqlite_schema WHERE name = 'MstxStartIndex'", {}, &rows))
      << db.error();
  std::string answer;
  for (const auto& row : rows) answer += (answer.empty() ? "" : " ") + row[0];
  return answer;
}

// A marker run large enough that the database writer's helper thread takes a share of
// MSTX_EVENTS: 2 threads, 40 steps of 1000 nested push/pop pairs (160,000 ranges).
std::string WriteMarkerRun(const std::filesystem::path& root) {
  const std::filesystem::path prof = root / "PROF_000001_20260101000000000_MARKERS";
  std::filesystem::create_directories(prof / "host" / "data");
  constexpr uint32_t kPid = 1000;
  const int64_t realtime = 1'700'000'000'000'000'000;
  testing::RawProcessWriter w((prof / "host" / "data" / "aiprof.1000.data").string(), kPid,
                              testing::MetadataJson(kPid, "node", false, 0, 0, realtime, 0));
  w.ClockSync(0, 0, realtime);
  uint64_t ns = 1000;
  for (uint32_t step = 1; step <= 40; ++step) {
    for (uint32_t tid : {100u, 101u}) w.StepBegin(tid, ns, step);
    for (int op = 0; op < 1000; ++op, ns += 600) {
      for (uint32_t tid : {100u, 101u}) {
        w.Push(tid, ns + 10, op % 2 ? "aten::mm" : "aten::add");
        w.Push(tid, ns + 20, "aten::copy_");
        w.Pop(tid, ns + 400);
        w.Pop(tid, ns + 500);
      }
    }
    for (uint32_t tid : {100u, 101u}) w.StepEnd(tid, ns, step);
    w.Flush();
  }
  w.Close();
  return prof.string();
}

// The helper thread's side database (the analysis tables and the back half of the marker
// rows, merged in after) and its sorted MSTX_EVENTS index entries (presorted_index.h)
// leave the file as one writer writes it.
TEST_F(ExportFixture, SqliteSideDatabaseWritesTheSameFile) {
  for (const std::string& prof : {prof_, WriteMarkerRun(root_)}) {
    const model::Model m = model::ParseFiles(model::ListRawFiles(prof));
    ASSERT_GT(m.markers.size(), 2u);
    const analysis::AnalysisSet analyses = analysis::RunAnalyses(m);
    const AnalysesWait wait = [&analyses] { return &analyses; };
    const std::string one = (root_ / "one.db").string(), two = (root_ / "two.db").string();
    std::string error;
    ASSERT_TRUE(WriteSqlite(m, one, &error, wait, {.threads = 1})) << error;
    ASSERT_TRUE(WriteSqlite(m, two, &error, wait, {.threads = 2, .side_min_rows = 1})) << error;
    const std::string dump = Dump(one);
    EXPECT_NE(dump.find("MSTX_EVENTS: "), std::string::npos);
    EXPECT_NE(dump.find("StepTraceTime: "), std::string::npos);
    const std::string other = Dump(two);
    // Not EXPECT_EQ: gtest's diff of two large texts takes memory by their product.
    const size_t differ =
        std::mismatch(dump.begin(), dump.end(), other.begin(), other.end()).first - dump.begin();
    EXPECT_TRUE(other == dump) << "first difference at byte " << differ << ": "
                               << dump.substr(differ, 120) << " / " << other.substr(differ, 120);
    EXPECT_FALSE(std::filesystem::exists(two + ".side.tmp"));  // the side database is gone
    EXPECT_EQ(IntegrityAndMstxIndexTable(one), "ok MSTX_EVENTS");
    EXPECT_EQ(IntegrityAndMstxIndexTable(two), "ok MSTX_EVENTS");
  }
}

// MergeFrom appends a table the database has and creates the ones it lacks, in the merged
// file's order.
TEST_F(ExportFixture, SqliteMergeFromAppendsAndCreatesTables) {
  const std::string main_path = (root_ / "main.db").string();
  const std::string side_path = (root_ / "side.db").string();
  {
    Database side;
    ASSERT_TRUE(side.Open(side_path));
    ASSERT_TRUE(
        side.Exec("CREATE TABLE B(x INTEGER, y TEXT); CREATE TABLE A(v INTEGER);"
                  "INSERT INTO B VALUES(3, 'c'), (4, 'd'); INSERT INTO A VALUES(7);"));
  }
  Database db;
  ASSERT_TRUE(db.Open(main_path));
  ASSERT_TRUE(
      db.Exec("CREATE TABLE B(x INTEGER, y TEXT); INSERT INTO B VALUES(1, 'a'), (2, 'b');"));
  ASSERT_TRUE(db.MergeFrom(side_path)) << db.error();
  db.Close();
  EXPECT_EQ(Dump(main_path),
            "table B CREATE TABLE B(x INTEGER, y TEXT)\n"
            "table A CREATE TABLE A(v INTEGER)\n"
            "B: 1|'a'\nB: 2|'b'\nB: 3|'c'\nB: 4|'d'\n"
            "A: 7\n");
}

}  // namespace
}  // namespace aiprof::exporter
