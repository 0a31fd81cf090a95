// The Query tab: read-only SQL over the run's tables. The tables are the database `aiprof
// export --type=db` writes (exporter::WriteSqlite, docs/db-schema.md: the same schema and
// values, the analysis tables included), written once, on the first query, into a private
// temporary directory (0700) beside nothing else and removed with the API. Each query opens
// its own read-only connection; an authorizer lets a statement read and call functions only
// (no writes, ATTACH, PRAGMA), a progress handler stops it past its time limit, and at most
// `row_limit` rows are returned. Integers beyond 2^53 (the epoch-ns times) are sent as
// strings, so that JavaScript does not round them.
#include "server/query_api.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>

#include "export/sqlite/sqlite_exporter.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

constexpr int64_t kExactInJavaScript = int64_t{1} << 53;

int ReadOnlyAuthorizer(void*, int action, const char*, const char*, const char*, const char*) {
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    default:
      return SQLITE_DENY;
  }
}

struct Deadline {
  std::chrono::steady_clock::time_point end;
  bool passed = false;
};

int StopPastDeadline(void* state) {
  auto* deadline = static_cast<Deadline*>(state);
  deadline->passed = std::chrono::steady_clock::now() > deadline->end;
  return deadline->passed ? 1 : 0;
}

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStatement {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;
using Statement = std::unique_ptr<sqlite3_stmt, FinalizeStatement>;

Db OpenReadOnly(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Db owned(db);
  if (rc != SQLITE_OK) {
    throw ApiError(500, std::string("query: cannot open the run's database: ") +
                            (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  return owned;
}

void AppendValue(sqlite3_stmt* statement, int column, std::string& out) {
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_INTEGER: {
      const int64_t value = sqlite3_column_int64(statement, column);
      if (value > kExactInJavaScript || value < -kExactInJavaScript) {
        out += '"' + std::to_string(value) + '"';
      } else {
        out += std::to_string(value);
      }
      break;
    }
    case SQLITE_FLOAT:
      AppendJsonNumber(out, sqlite3_column_double(statement, column));
      break;
    case SQLITE_TEXT: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
      AppendJsonString(
          out,
          std::string_view(text, static_cast<size_t>(sqlite3_column_bytes(statement, column))));
      break;
    }
    case SQLITE_BLOB:
      AppendJsonString(
          out, "<blob of " + std::to_string(sqlite3_column_bytes(statement, column)) + " bytes>");
      break;
    default:
      out += "null";
  }
}

}  // namespace

QueryApi::~QueryApi() {
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

const std::string& QueryApi::Database() const {
  std::call_once(once_, [this] {
    std::error_code ec;
    std::string base = std::filesystem::temp_directory_path(ec).string();
    if (ec || base.empty()) base = "/tmp";
    std::string pattern = base + "/aiprof_ui_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {  // mode 0700: private to this user
      error_ = "cannot create a private directory in " + base + ": " + std::strerror(errno);
      return;
    }
    dir_ = pattern;
    const std::string path = dir_ + "/run.db";
    std::string error;
    if (!exporter::WriteSqlite(model_, path, &error, &analyses_.Analyses())) {
      error_ = "cannot write the run's database: " + error;
      return;
    }
    path_ = path;
  });
  if (path_.empty()) throw ApiError(500, "query: " + error_);
  return path_;
}

std::string QueryApi::Answer(const std::string& sql, size_t row_limit,
                             int64_t time_limit_ms) const {
  if (sql.find_first_not_of(" \t\r\n;") == std::string::npos) {
    throw ApiError(400, "query: the parameter q (an SQL SELECT statement) is empty");
  }
  Db db = OpenReadOnly(Database());
  sqlite3_set_authorizer(db.get(), ReadOnlyAuthorizer, nullptr);
  Deadline deadline{std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms)};
  sqlite3_progress_handler(db.get(), 10000, StopPastDeadline, &deadline);
  const auto started = std::chrono::steady_clock::now();
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int prepared =
      sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  Statement statement(raw);
  if (prepared != SQLITE_OK) {
    throw ApiError(400, std::string("query: ") + sqlite3_errmsg(db.get()) +
                            " (only reading statements are allowed; the tables are listed "
                            "in the tab, docs/db-schema.md)");
  }
  if (statement == nullptr) throw ApiError(400, "query: no statement");
  if (std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    throw ApiError(400, "query: one statement at a time");
  }
  if (!sqlite3_stmt_readonly(statement.get())) {
    throw ApiError(400, "query: the database is read-only (SELECT and WITH only)");
  }
  const int columns = sqlite3_column_count(statement.get());
  std::string out = "{\"columns\":[";
  for (int c = 0; c < columns; ++c) {
    if (c > 0) out += ',';
    AppendJsonString(out, sqlite3_column_name(statement.get(), c));
  }
  out += "],\"rows\":[";
  size_t rows = 0;
  bool truncated = false;
  for (;;) {
    const int step = sqlite3_step(statement.get());
    if (step == SQLITE_DONE) break;
    if (step != SQLITE_ROW) {
      if (deadline.passed) {
        throw ApiError(400, "query: stopped after " + std::to_string(time_limit_ms) +
                                " ms; narrow it (WHERE, LIMIT) or use aiprof export --type=db "
                                "and sqlite3 for long queries");
      }
      throw ApiError(400, std::string("query: ") + sqlite3_errmsg(db.get()));
    }
    if (rows == row_limit) {
      truncated = true;
      break;
    }
    if (rows++ > 0) out += ',';
    out += '[';
    for (int c = 0; c < columns; ++c) {
      if (c > 0) out += ',';
      AppendValue(statement.get(), c, out);
    }
    out += ']';
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  out += "],\"truncated\":";
  out += truncated ? "true" : "false";
  out += ",\"ms\":";
  AppendJsonNumber(out, ms);
  // Times in the tables are epoch ns; the timeline's are ns since this origin.
  out += ",\"origin_ns\":\"" + std::to_string(origin_ns_) + "\"}";
  return out;
}

std::string QueryApi::Schema() const {
  Db db = OpenReadOnly(Database());
  sqlite3_stmt* raw = nullptr;
  sqlite3_prepare_v2(db.get(),
                     "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p "
                     "WHERE m.type = 'table' ORDER BY m.name, p.cid",
                     -1, &raw, nullptr);
  Statement statement(raw);
  std::string out = "{\"tables\":[";
  std::string table;
  bool any = false;
  while (statement != nullptr && sqlite3_step(statement.get()) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0));
    const char* column = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 1));
    if (name != table) {
      if (any) out += "]},";
      any = true;
      table = name;
      out += "{\"name\":";
      AppendJsonString(out, name);
      out += ",\"columns\":[";
    } else {
      out += ',';
    }
    AppendJsonString(out, column);
  }
  if (any) out += "]}";
  out += "]}";
  return out;
}

}  // namespace aiprof::server
