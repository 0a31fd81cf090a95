// An index over one INTEGER column whose entries are put in order here instead of by
// SQLite's sorter (CREATE INDEX spends most of its time sorting), so that the database's
// writer only appends them, even before the table's last rows are in. The entries, (key,
// rowid) in index order, go into a WITHOUT ROWID table keyed by both: an index b-tree whose records
// are exactly the index's (the key, then the rowid: SQLite's file format, "Index B-Trees" and
// "WITHOUT ROWID tables"), which is then renamed into the index in sqlite_schema (PRAGMA
// writable_schema). The file then holds what CREATE INDEX would have written: the same
// sqlite_schema row and the same entries (PRAGMA integrity_check compares them with the table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "export/sqlite/database.h"

namespace aiprof::exporter {

struct PresortedIndex {
  const char* name;    // MstxStartIndex
  const char* table;   // MSTX_EVENTS
  const char* column;  // startNs, an INTEGER column

  // The index's CREATE statement, as the database stores it.
  std::string CreateSql() const;
};

// The rows [0, rows) of a table in the order of an index on key_of(row): by key, equal keys
// in table order. The keys come as a few ascending runs (each thread's rows in time
// order, threads interleaved), so the runs are merged (analysis/run_sort.h), without a
// sort; many short runs are sorted. 4 bytes a row.
std::vector<uint32_t> IndexOrder(size_t rows, const std::function<int64_t(size_t)>& key_of);

// Where index.CreateSql() would run in `db` (inside a transaction): writes the entries of
// an index over a table whose row i (rowid i + 1: written in order, no row skipped) has the
// key key_of(i), its rows in IndexOrder, into a table of their own, which is not an index
// yet: rows may still be appended to the indexed table, if they are among the rows.
bool WriteIndexEntries(Database& db, const PresortedIndex& index,
                       const std::vector<uint32_t>& order,
                       const std::function<int64_t(size_t)>& key_of);
// Once the indexed table holds every row of the entries: makes them the index.
bool AdoptIndexEntries(Database& db, const PresortedIndex& index);

}  // namespace aiprof::exporter
