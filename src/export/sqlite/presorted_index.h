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

#include "export/sqlite/database.h"

namespace aiprof::exporter {

struct PresortedIndex {
  const char* name;    // MstxStartIndex
  const char* table;   // MSTX_EVENTS
  const char* column;  // startNs, an INTEGER column

  // The index's CREATE statement, as the database stores it.
  std::string CreateSql() const;
};

// Where index.CreateSql() would run in `db` (inside a transaction): writes the entries of
// an index over a table whose row i (rowid i + 1: written in order, no row skipped) has
// the key key_of(i), for i in [0, rows), into a table of their own, which is not an index
// yet: rows may still be appended to the indexed table, if they are among the `rows`. The
// keys come as a few ascending runs (each thread's rows in time order, threads
// interleaved): the entries are read by merging the runs (analysis/run_sort.h), with
// neither a sort nor a copy of them; many short runs are sorted (16 bytes a row).
bool WriteIndexEntries(Database& db, const PresortedIndex& index, size_t rows,
                       const std::function<int64_t(size_t)>& key_of);
// Once the indexed table holds every row of the entries: makes them the index.
bool AdoptIndexEntries(Database& db, const PresortedIndex& index);

}  // namespace aiprof::exporter
