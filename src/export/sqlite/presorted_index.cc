#include "export/sqlite/presorted_index.h"

#include <algorithm>
#include <queue>
#include <utility>
#include <vector>

#include "analysis/run_sort.h"
#include "model/huge_pages.h"

namespace aiprof::exporter {

std::string PresortedIndex::CreateSql() const {
  return std::string("CREATE INDEX ") + name + " ON " + table + "(" + column + ")";
}

namespace {

std::string EntriesTable(const PresortedIndex& index) {
  return std::string("aiprof_") + index.name + "_entries";
}

}  // namespace

bool WriteIndexEntries(Database& db, const PresortedIndex& index, size_t rows,
                       const std::function<int64_t(size_t)>& key_of) {
  analysis::TableRuns runs;
  for (size_t i = 0; i < rows; ++i) runs.Add(static_cast<uint32_t>(i), key_of(i));
  // Each run's next row, by (key, run): equal keys in table order, as the index has them.
  using Head = std::pair<int64_t, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::vector<uint32_t> at;
  std::vector<std::pair<int64_t, int64_t>> sorted;  // (key, rowid), for many short runs
  if (runs.ShortRuns()) {
    model::ReserveOnHugePages(sorted, rows);
    for (size_t i = 0; i < rows; ++i) sorted.emplace_back(key_of(i), static_cast<int64_t>(i) + 1);
    std::sort(sorted.begin(), sorted.end());
  } else {
    for (const auto& [first, end] : runs.ranges) {
      heads.emplace(key_of(first), at.size());
      at.push_back(first);
    }
  }
  size_t next = 0;
  const RowGenerator entries = [&](Row& row) {
    if (!sorted.empty()) {
      if (next == sorted.size()) return false;
      row.Int(sorted[next].first).Int(sorted[next].second);
      ++next;
      return true;
    }
    if (heads.empty()) return false;
    const auto [key, run] = heads.top();
    heads.pop();
    row.Int(key).Int(int64_t{at[run]} + 1);
    if (++at[run] < runs.ranges[run].second) heads.emplace(key_of(at[run]), run);
    return true;
  };
  // Both columns in the key, in the index's order: the table's records are the index's.
  const std::string table = EntriesTable(index);
  const std::string column = index.column;
  return db.Exec("CREATE TABLE " + table + "(" + column + " INTEGER, rowId INTEGER, " +
                 "PRIMARY KEY(" + column + ", rowId)) WITHOUT ROWID") &&
         db.InsertAll(table.c_str(), 2, entries);
}

bool AdoptIndexEntries(Database& db, const PresortedIndex& index) {
  // The table's sqlite_schema row becomes the one CREATE INDEX writes; RESET reloads the
  // schema, so this connection knows the index from here on.
  const std::string table = EntriesTable(index);
  bool ok = db.Exec("PRAGMA writable_schema = ON") &&
            db.Exec("UPDATE main.sqlite_schema SET type = 'index', name = '" +
                    std::string(index.name) + "', tbl_name = '" + index.table + "', sql = '" +
                    index.CreateSql() + "' WHERE type = 'table' AND name = '" + table + "'");
  ok = ok && (sqlite3_changes(db.handle()) == 1 || db.Fail("no table " + table));
  return db.Exec("PRAGMA writable_schema = RESET") && ok;
}

}  // namespace aiprof::exporter
