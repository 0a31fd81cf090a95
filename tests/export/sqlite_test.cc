#include <sqlite3.h>

#include "export/export_job.h"
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
  EXPECT_EQ(Column("SELECT count(*) FROM API"), std::vector<std::string>{"8"});
  EXPECT_EQ(
      Column("SELECT s.value || '@' || (a.startNs - " + std::to_string(testing::GoldenRealtime(0)) +
             ") || '+' || (a.endNs - a.startNs)"
             " FROM API a JOIN STRING_IDS s ON s.id = a.name ORDER BY a.startNs, a.id"),
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
            std::vector<std::string>{"6"});
}

}  // namespace
}  // namespace aiprof::exporter
