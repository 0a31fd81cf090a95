#include "export/sqlite/database.h"

namespace aiprof::exporter {

Statement::Statement(sqlite3* db, const char* sql, Database* owner) : owner_(owner) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement& Statement::Int(int64_t value) {
  if (stmt_ != nullptr) sqlite3_bind_int64(stmt_, ++column_, value);
  return *this;
}

Statement& Statement::Real(double value) {
  if (stmt_ != nullptr) sqlite3_bind_double(stmt_, ++column_, value);
  return *this;
}

Statement& Statement::Text(std::string_view text) {
  if (stmt_ != nullptr)
    sqlite3_bind_text(stmt_, ++column_, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::Null() {
  if (stmt_ != nullptr) sqlite3_bind_null(stmt_, ++column_);
  return *this;
}

void Statement::Bind(std::string_view text) {
  if (stmt_ != nullptr)
    sqlite3_bind_text(stmt_, ++column_, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

bool Statement::Run() {
  column_ = 0;
  if (stmt_ == nullptr || !ok_) return false;
  ok_ = sqlite3_step(stmt_) == SQLITE_DONE;
  if (!ok_ && owner_ != nullptr) owner_->Fail("insert");
  sqlite3_reset(stmt_);
  return ok_;
}

Database::~Database() {
  Close();
}

void Database::Close() {
  statements_.clear();  // finalized before the connection closes
  if (db_ != nullptr) sqlite3_close(db_);
  db_ = nullptr;
}

bool Database::Open(const std::string& path, Mode mode) {
  // One connection used by one thread: SQLite's per-call mutexes are pure cost.
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                    (mode == Mode::kCreate ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) return Fail("open");
  // A fresh file written once: no journal, no syncs, no zeroing of freed pages (Debian
  // builds SQLite with SECURE_DELETE). An 8 MB cache was faster than 32 MB here (the index
  // sorter sizes itself from it) and keeps the export's peak memory down.
  const char* pragmas =
      mode == Mode::kCreate
          ? "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
            "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; PRAGMA secure_delete=OFF;"
          : "PRAGMA secure_delete=OFF;";
  return Exec(pragmas) && rows_.Register(db_, &error_);
}

bool Database::Exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return true;
  if (error_.empty()) error_ = message != nullptr ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return false;
}

Statement* Database::Prepare(const char* sql) {
  Statement& statement = statements_.emplace_back(db_, sql, this);
  if (!statement.ok()) Fail(sql);
  return &statement;
}

bool Database::InsertAll(const char* table, int columns, const RowGenerator& generator) {
  return error_.empty() && rows_.InsertAll(db_, table, columns, generator, &error_);
}

std::string Database::TableSql(const std::string& table) {
  std::vector<std::vector<std::string>> rows;
  const bool ok = TextRows("SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?",
                           table, &rows);
  return ok && !rows.empty() ? rows[0][0] : std::string();
}

bool Database::MergeFrom(const std::string& path) {
  std::vector<std::vector<std::string>> tables;  // name, CREATE statement; in creation order
  if (!TextRows("ATTACH ? AS merged", path, &tables)) return Fail("attach " + path);
  bool ok = TextRows(
                "SELECT name, sql FROM merged.sqlite_schema WHERE type = 'table' AND "
                "substr(name, 1, 7) <> 'sqlite_' ORDER BY rowid",
                {}, &tables) &&
            Begin();
  for (size_t i = 0; ok && i < tables.size(); ++i) {
    const std::string& name = tables[i][0];
    const std::string quoted = "\"" + name + "\"";  // aiprof's table names: no quotes inside
    ok = (!TableSql(name).empty() || Exec(tables[i][1])) &&
         Exec("INSERT INTO main." + quoted + " SELECT * FROM merged." + quoted);
  }
  ok = ok && Commit();
  if (!ok) Exec("ROLLBACK");
  return Exec("DETACH merged") && ok;
}

bool Database::TextRows(const char* sql, const std::string& parameter,
                        std::vector<std::vector<std::string>>* rows) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) return Fail(sql);
  if (sqlite3_bind_parameter_count(stmt) > 0) {
    sqlite3_bind_text(stmt, 1, parameter.data(), static_cast<int>(parameter.size()),
                      SQLITE_TRANSIENT);
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::vector<std::string>& row = rows->emplace_back();
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const unsigned char* text = sqlite3_column_text(stmt, c);
      row.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
  }
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE || Fail(sql);
}

bool Database::Fail(const std::string& what) {
  if (error_.empty())
    error_ = what + ": " + (db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory");
  return false;
}

}  // namespace aiprof::exporter
