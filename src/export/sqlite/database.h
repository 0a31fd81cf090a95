// The one SQLite layer of every database aiprof writes (the export's database, analysis.db,
// the cluster's cluster.db): opening with the pragmas of a file written once, transactions,
// prepared statements bound cell by cell or all at once, bulk inserts from row generators
// (row_source.h) and tables created and filled from a column list. Every writer of a
// database is in src/export/sqlite/ and takes a Database; the only other user of SQLite is
// the UI's Query tab, which opens the export's database read-only (server/query_api.cc).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/result_columns.h"
#include "export/sqlite/row_source.h"

namespace aiprof::exporter {

// One prepared statement; cells are bound in column order, then Run inserts the row.
class Database;

class Statement {
 public:
  // `owner` (may be null) records a failed row as its error.
  Statement(sqlite3* db, const char* sql, Database* owner = nullptr);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr && ok_; }
  Statement& Int(int64_t value);
  Statement& Real(double value);
  Statement& Text(std::string_view text);  // copied: the text may go before Run
  Statement& Null();
  Statement& OwnedText(std::string_view text) { return Text(text); }  // as Row::OwnedText
  // Runs the bound row; after a failure the statement refuses further rows (ok() false).
  bool Run();

  // Binds `values` in order and runs the row: integers, doubles, text, nullptr for NULL.
  // Text is not copied: the values outlive the call.
  template <typename... Values>
  bool Insert(const Values&... values) {
    (Bind(values), ...);
    return Run();
  }

 private:
  void Bind(int64_t v) { Int(v); }
  void Bind(uint64_t v) { Int(static_cast<int64_t>(v)); }
  void Bind(int32_t v) { Int(v); }
  void Bind(uint32_t v) { Int(v); }
  void Bind(double v) { Real(v); }
  void Bind(std::nullptr_t) { Null(); }
  void Bind(std::string_view v);

  sqlite3_stmt* stmt_ = nullptr;
  Database* owner_ = nullptr;
  int column_ = 0;
  bool ok_ = true;
};

class Database {
 public:
  // kCreate: a new file written once (no journal, no syncs, exclusive); kUpdate: an
  // existing database that gets more tables.
  enum class Mode { kCreate, kUpdate };
  Database() = default;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool Open(const std::string& path, Mode mode = Mode::kCreate);
  // Finalizes the statements and closes the file (the destructor does too).
  void Close();
  bool Exec(const std::string& sql);
  bool Begin() { return Exec("BEGIN"); }
  bool Commit() { return Exec("COMMIT"); }
  // A statement that lives as long as the database. Never null: one that failed to
  // prepare sets error() and inserts nothing.
  Statement* Prepare(const char* sql);
  // Inserts every row `generator` yields into `table` in one statement (large tables).
  bool InsertAll(const char* table, int columns, const RowGenerator& generator);
  // Appends every table of the database file at `path` (written by another connection,
  // now closed) in that file's order: a table this database lacks is first created with
  // the same SQL, then the rows are copied as stored records (SQLite's transfer of rows
  // between tables of one declared shape, no decoding; the target must have no index yet).
  // Runs its own transaction: call it outside one.
  bool MergeFrom(const std::string& path);
  // The CREATE statement of `table`, empty when there is none.
  std::string TableSql(const std::string& table);
  // Runs `sql` (with `parameter` bound to its one ?, if it has one) and appends its rows'
  // cells as text to `rows`.
  bool TextRows(const char* sql, const std::string& parameter,
                std::vector<std::vector<std::string>>* rows);
  // Creates `table` with `columns` ("name TYPE") and fills it: `fill(Statement&)` binds and
  // runs each row.
  template <typename Fill>
  bool Table(const std::string& table, const std::vector<std::string>& columns, Fill fill) {
    std::string create = "CREATE TABLE " + table + " (",
                insert = "INSERT INTO " + table + " VALUES (";
    for (size_t i = 0; i < columns.size(); ++i) {
      create += (i ? ", " : "") + columns[i];
      insert += i ? ", ?" : "?";
    }
    if (!Exec(create + ")")) return false;
    Statement* rows = Prepare((insert + ")").c_str());
    if (!rows->ok()) return false;
    fill(*rows);
    return rows->ok() || Fail(table);
  }

  // Records `what` and SQLite's message as the error; returns false.
  bool Fail(const std::string& what);
  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }
  sqlite3* handle() const { return db_; }
  RowSource& rows() { return rows_; }

 private:
  sqlite3* db_ = nullptr;
  std::deque<Statement> statements_;
  std::string error_;
  RowSource rows_;
};

}  // namespace aiprof::exporter
