// An index over one INTEGER column whose entries are sorted here instead of by SQLite's
// sorter (CREATE INDEX spends most of its time sorting), on any thread, so that the
// database's writer only appends them. The entries, (key, rowid) in index order, go into a
// WITHOUT ROWID table keyed by both: an index b-tree whose records are exactly the index's
// (the key, then the rowid: SQLite's file format, "Index B-Trees" and "WITHOUT ROWID
// tables"), which is then renamed into the index in sqlite_schema (PRAGMA writable_schema).
// The file then holds what CREATE INDEX would have written: the same sqlite_schema row and
// the same entries (PRAGMA integrity_check compares them with the table).
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

struct IndexEntry {
  int64_t key;
  int64_t rowid;
  bool operator<(const IndexEntry& other) const {
    return key != other.key ? key < other.key : rowid < other.rowid;
  }
};

// The entries of an index over a table whose row i (rowid i + 1: written in order, no row
// skipped) has the key key_of(i), in index order. 16 bytes a row.
std::vector<IndexEntry> SortedIndexEntries(size_t rows,
                                           const std::function<int64_t(size_t)>& key_of);

// Where index.CreateSql() would run in `db` (the table complete, inside a transaction):
// writes the index from `entries` (SortedIndexEntries of the table).
bool WritePresortedIndex(Database& db, const PresortedIndex& index,
                         const std::vector<IndexEntry>& entries);

}  // namespace aiprof::exporter
