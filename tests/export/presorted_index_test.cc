#include "export/sqlite/presorted_index.h"

#include <gtest/gtest.h>

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

void Insert(Database& db, const std::vector<int64_t>& keys, size_t begin, size_t end) {
  Statement* insert = db.Prepare("INSERT INTO T VALUES(?, 'x')");
  for (size_t i = begin; i < end; ++i) insert->Insert(keys[i]);
}

// A table T(k, v) with `keys`, indexed on k by CREATE INDEX in created.db and from its
// index entries in presorted.db: the entries written when the table holds half its rows,
// the rest appended before they become the index. Both files must hold the same index: the
// same sqlite_schema row, entries PRAGMA integrity_check finds equal to the table's, the
// same rows read through it, kept up to date as any index.
void ExpectTheIndexCreateIndexBuilds(const std::filesystem::path& dir,
                                     const std::vector<int64_t>& keys) {
  const PresortedIndex index{"TI", "T", "k"};
  Database created;
  ASSERT_TRUE(created.Open((dir / "created.db").string()));
  ASSERT_TRUE(created.Exec("CREATE TABLE T(k INTEGER, v TEXT)"));
  Insert(created, keys, 0, keys.size());
  ASSERT_TRUE(created.Exec(index.CreateSql()));

  Database db;
  ASSERT_TRUE(db.Open((dir / "presorted.db").string()));
  ASSERT_TRUE(db.Exec("CREATE TABLE T(k INTEGER, v TEXT)"));
  Insert(db, keys, 0, keys.size() / 2);
  ASSERT_TRUE(db.Exec("CREATE INDEX Before ON T(v)"));
  ASSERT_TRUE(db.Begin());
  const auto key_of = [&keys](size_t i) { return keys[i]; };
  ASSERT_TRUE(WriteIndexEntries(db, index, IndexOrder(keys.size(), key_of), key_of)) << db.error();
  Insert(db, keys, keys.size() / 2, keys.size());
  ASSERT_TRUE(AdoptIndexEntries(db, index)) << db.error();
  ASSERT_TRUE(db.Exec("CREATE INDEX After ON T(k, v)"));
  ASSERT_TRUE(db.Commit());

  EXPECT_EQ(Rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  EXPECT_EQ(Rows(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid"),
            (std::vector<std::string>{"table|T|T|CREATE TABLE T(k INTEGER, v TEXT)",
                                      "index|Before|T|CREATE INDEX Before ON T(v)",
                                      "index|TI|T|CREATE INDEX TI ON T(k)",
                                      "index|After|T|CREATE INDEX After ON T(k, v)"}));
  const char* row =
      "SELECT type, name, tbl_name, sql, rootpage > 0 FROM sqlite_schema "
      "WHERE name = 'TI'";
  EXPECT_EQ(Rows(db, row), Rows(created, row));
  const char* by_index = "SELECT k, rowid FROM T INDEXED BY TI WHERE k > -1000 ORDER BY k";
  EXPECT_EQ(Rows(db, by_index), Rows(created, by_index));
  EXPECT_EQ(Rows(db, by_index).size(), keys.size());
  const char* change =
      "INSERT INTO T VALUES(8, 'y'); UPDATE T SET k = 99 WHERE rowid = 2; "
      "DELETE FROM T WHERE rowid = 5";
  ASSERT_TRUE(db.Exec(change));
  ASSERT_TRUE(created.Exec(change));
  EXPECT_EQ(Rows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  EXPECT_EQ(Rows(db, by_index), Rows(created, by_index));
}

// Keys out of order, repeated and negative: many short runs, sorted.
TEST_F(ExportFixture, PresortedIndexOfShortRunsIsTheIndexCreateIndexBuilds) {
  ExpectTheIndexCreateIndexBuilds(root_,
                                  {30, -5, 30, 7, 1'700'000'000'000'000'000, 7, 0, -5, 30, 12});
}

// Four long ascending runs (as four threads' chunks, one after the other) whose keys
// interleave and repeat within and across runs: merged.
TEST_F(ExportFixture, PresortedIndexOfLongRunsIsTheIndexCreateIndexBuilds) {
  std::vector<int64_t> keys;
  for (int64_t run = 0; run < 4; ++run) {
    for (int64_t i = 0; i < 500; ++i) keys.push_back(i / 2 * 3 + run % 3);
  }
  ExpectTheIndexCreateIndexBuilds(root_, keys);
}

}  // namespace
}  // namespace aiprof::exporter
