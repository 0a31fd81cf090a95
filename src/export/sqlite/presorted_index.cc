#include "export/sqlite/presorted_index.h"

#include <algorithm>
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

std::vector<uint32_t> IndexOrder(size_t rows, const std::function<int64_t(size_t)>& key_of) {
  analysis::TableRuns runs;
  for (size_t i = 0; i < rows; ++i) runs.Add(static_cast<uint32_t>(i), key_of(i));
  std::vector<uint32_t> order;
  model::ReserveOnHugePages(order, rows);
  if (runs.ShortRuns()) {
    for (size_t i = 0; i < rows; ++i) order.push_back(static_cast<uint32_t>(i));
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return key_of(a) < key_of(b); });
  } else {
    // Equal keys in table order (by run, then within it), as the index has them.
    analysis::MergeRuns(
        runs, [](uint32_t) { return true; }, [&](uint32_t row) { return key_of(row); },
        [&](uint32_t row) { order.push_back(row); });
  }
  return order;
}

bool WriteIndexEntries(Database& db, const PresortedIndex& index,
                       const std::vector<uint32_t>& order,
                       const std::function<int64_t(size_t)>& key_of) {
  size_t next = 0;
  const RowGenerator entries = [&](Row& row) {
    if (next == order.size()) return false;
    const uint32_t at = order[next++];
    row.Int(key_of(at)).Int(int64_t{at} + 1);
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
