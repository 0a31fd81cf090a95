#include "export/sqlite/row_source.h"

namespace aiprof::exporter {
namespace {

struct Table {
  sqlite3_vtab base{};
  RowSource* source;
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  const RowGenerator* generator = nullptr;
  Row row;
  int64_t rowid = 0;
  bool eof = true;
};

std::string ColumnList(int columns) {
  std::string list;
  for (int i = 0; i < columns; ++i) list += (i ? ",c" : "c") + std::to_string(i);
  return list;
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc =
      sqlite3_declare_vtab(db, ("CREATE TABLE x(" + ColumnList(Row::kMaxColumns) + ")").c_str());
  if (rc != SQLITE_OK) return rc;
  auto* table = new Table;
  table->source = static_cast<RowSource*>(aux);
  *out = &table->base;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* table) {
  delete reinterpret_cast<Table*>(table);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedCost = 1e6;
  return SQLITE_OK;
}

int Open(sqlite3_vtab* table, sqlite3_vtab_cursor** out) {
  auto* cursor = new Cursor;
  cursor->generator = reinterpret_cast<Table*>(table)->source->generator();
  *out = &cursor->base;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<Cursor*>(cursor);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<Cursor*>(base);
  cursor->row.Clear();
  cursor->eof = cursor->generator == nullptr || !(*cursor->generator)(cursor->row);
  ++cursor->rowid;
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cursor, int, const char*, int, sqlite3_value**) {
  reinterpret_cast<Cursor*>(cursor)->rowid = 0;
  return Next(cursor);
}

int Eof(sqlite3_vtab_cursor* cursor) {
  return reinterpret_cast<Cursor*>(cursor)->eof;
}

int Column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  const Row& row = reinterpret_cast<Cursor*>(base)->row;
  if (column >= row.columns()) {
    sqlite3_result_null(context);
    return SQLITE_OK;
  }
  const Row::Cell& cell = row.cell(column);
  switch (cell.type) {
    case Row::Cell::kInt:
      sqlite3_result_int64(context, cell.i);
      break;
    case Row::Cell::kReal:
      sqlite3_result_double(context, cell.d);
      break;
    case Row::Cell::kText:
      sqlite3_result_text(context, cell.text.data(), static_cast<int>(cell.text.size()),
                          SQLITE_STATIC);
      break;
    case Row::Cell::kNull:
      sqlite3_result_null(context);
      break;
  }
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = reinterpret_cast<Cursor*>(cursor)->rowid;
  return SQLITE_OK;
}

// Eponymous-only (no xCreate): the table exists on every connection it is registered on.
sqlite3_module MakeModule() {
  sqlite3_module module{};
  module.xConnect = Connect;
  module.xBestIndex = BestIndex;
  module.xDisconnect = Disconnect;
  module.xDestroy = Disconnect;
  module.xOpen = Open;
  module.xClose = Close;
  module.xFilter = Filter;
  module.xNext = Next;
  module.xEof = Eof;
  module.xColumn = Column;
  module.xRowid = Rowid;
  return module;
}
const sqlite3_module kModule = MakeModule();

}  // namespace

bool RowSource::Register(sqlite3* db, std::string* error) {
  if (sqlite3_create_module_v2(db, "aiprof_rows", &kModule, this, nullptr) == SQLITE_OK) {
    return true;
  }
  *error = std::string("register aiprof_rows: ") + sqlite3_errmsg(db);
  return false;
}

bool RowSource::InsertAll(sqlite3* db, const char* table, int columns,
                          const RowGenerator& generator, std::string* error) {
  std::string sql =
      std::string("INSERT INTO ") + table + " SELECT " + ColumnList(columns) + " FROM aiprof_rows";
  generator_ = &generator;
  char* message = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  generator_ = nullptr;
  if (rc == SQLITE_OK) return true;
  *error = std::string(table) + ": " + (message ? message : sqlite3_errmsg(db));
  sqlite3_free(message);
  return false;
}

}  // namespace aiprof::exporter
