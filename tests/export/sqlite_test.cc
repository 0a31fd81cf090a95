#include <sqlite3.h>

#include "export/export_job.h"
#include "export/sqlite/sqlite_exporter.h"
#include "export_fixture.h"

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

}  // namespace
}  // namespace aiprof::exporter
