#include "export/sqlite/presorted_index.h"

#include <algorithm>

#include "model/huge_pages.h"

namespace aiprof::exporter {

std::string PresortedIndex::CreateSql() const {
  return std::string("CREATE INDEX ") + name + " ON " + table + "(" + column + ")";
}

std::vector<IndexEntry> SortedIndexEntries(size_t rows,
                                           const std::function<int64_t(size_t)>& key_of) {
  std::vector<IndexEntry> entries;
  model::ReserveOnHugePages(entries, rows);
  for (size_t i = 0; i < rows; ++i) entries.push_back({key_of(i), static_cast<int64_t>(i) + 1});
  std::sort(entries.begin(), entries.end());
  return entries;
}

bool WritePresortedIndex(Database& db, const PresortedIndex& index,
                         const std::vector<IndexEntry>& entries) {
  // Both columns in the key, in the index's order: the table's records are the index's.
  const std::string table = std::string("aiprof_") + index.name + "_entries";
  const std::string column = index.column;
  size_t next = 0;
  bool ok = db.Exec("CREATE TABLE " + table + "(" + column + " INTEGER, rowId INTEGER, " +
                    "PRIMARY KEY(" + column + ", rowId)) WITHOUT ROWID") &&
            db.InsertAll(table.c_str(), 2,
                         [&](Row& row) {
                           if (next == entries.size()) return false;
                           row.Int(entries[next].key).Int(entries[next].rowid);
                           ++next;
                           return true;
                         }) &&
            db.Exec("PRAGMA writable_schema = ON");
  // The table's sqlite_schema row becomes the one CREATE INDEX writes; RESET reloads the
  // schema, so this connection knows the index from here on.
  ok = ok && db.Exec("UPDATE main.sqlite_schema SET type = 'index', name = '" +
                     std::string(index.name) + "', tbl_name = '" + index.table + "', sql = '" +
                     index.CreateSql() + "' WHERE name = '" + table + "'");
  ok = ok && (sqlite3_changes(db.handle()) == 1 || db.Fail("rename " + table));
  return db.Exec("PRAGMA writable_schema = RESET") && ok;
}

}  // namespace aiprof::exporter
