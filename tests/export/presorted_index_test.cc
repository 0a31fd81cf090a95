#include "export/sqlite/presorted_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "export_fixture.h"

namespace aiprof::exporter {
namespace {

// Every row of `sql`, its cells joined by '|'.
std::vector<std::string> Rows(Database& db, const char* sql) {
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(db.TextRows(sql, {}, &rows)) << db.error();
  std::vector<std::string> lines;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "|" : "") + row[c];
    lines.push_back(line);
  }
  return lines;
}

// Keys out of order, repeated and negative.
constexpr int64_t kKeys[] = {30, -5, 30, 7, 1'700'000'000'000'000'000, 7, 0, -5, 30, 12};
constexpr size_t kRows = std::size(kKeys);

void WriteTable(Database& db) {
  ASSERT_TRUE(db.Exec("CREATE TABLE T(k INTEGER, v TEXT)"));
  for (int64_t key : kKeys) db.Prepare("INSERT INTO T VALUES(?, 'x')")->Insert(key);
}

TEST(PresortedIndex, EntriesAreInIndexOrder) {
  const std::vector<IndexEntry> entries =
      SortedIndexEntries(kRows, [](size_t i) { return kKeys[i]; });
  ASSERT_EQ(entries.size(), kRows);
  for (size_t i = 0; i < kRows; ++i) {
    EXPECT_EQ(entries[i].key, kKeys[entries[i].rowid - 1]);
    if (i > 0) {
      EXPECT_TRUE(entries[i - 1] < entries[i]);
    }
  }
}

// The database holds what CREATE INDEX writes: the same sqlite_schema row, entries that
// PRAGMA integrity_check finds equal to the table's, an index SQLite uses and keeps up to
// date, and no trace of the table it was written through.
TEST_F(ExportFixture, PresortedIndexIsTheIndexCreateIndexBuilds) {
  const PresortedIndex index{"TI", "T", "k"};
  Database created;
  ASSERT_TRUE(created.Open((root_ / "created.db").string()));
  WriteTable(created);
  ASSERT_TRUE(created.Exec(index.CreateSql()));

  Database db;
  ASSERT_TRUE(db.Open((root_ / "presorted.db").string()));
  WriteTable(db);
  ASSERT_TRUE(db.Exec("CREATE INDEX Before ON T(v)"));
  ASSERT_TRUE(db.Begin());
  ASSERT_TRUE(
      WritePresortedIndex(db, index, SortedIndexEntries(kRows, [](size_t i) { return kKeys[i]; })))
      << db.error();
  ASSERT_TRUE(db.Exec("CREATE INDEX After ON T(k, v)"));
  ASSERT_TRUE(db.Commit());

  EXPECT_EQ(Rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  const char* schema = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid";
  EXPECT_EQ(Rows(db, schema),
            (std::vector<std::string>{"table|T|T|CREATE TABLE T(k INTEGER, v TEXT)",
                                      "index|Before|T|CREATE INDEX Before ON T(v)",
                                      "index|TI|T|CREATE INDEX TI ON T(k)",
                                      "index|After|T|CREATE INDEX After ON T(k, v)"}));
  EXPECT_EQ(Rows(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = 'TI'"),
            Rows(created, "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name = 'TI'"));
  const char* by_index = "SELECT k, rowid FROM T INDEXED BY TI WHERE k >= -5 ORDER BY k";
  EXPECT_EQ(Rows(db, by_index), Rows(created, by_index));
  EXPECT_EQ(Rows(db, by_index).size(), kRows);
  // Kept up to date as any index.
  ASSERT_TRUE(
      db.Exec("INSERT INTO T VALUES(8, 'y'); UPDATE T SET k = 99 WHERE rowid = 2; "
              "DELETE FROM T WHERE rowid = 5"));
  EXPECT_EQ(Rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  EXPECT_EQ(Rows(db, "SELECT rowid FROM T INDEXED BY TI WHERE k BETWEEN 7 AND 99 ORDER BY k"),
            (std::vector<std::string>{"4", "6", "11", "10", "1", "3", "9", "2"}));
}

}  // namespace
}  // namespace aiprof::exporter
