// Bulk inserts through an eponymous virtual table: `INSERT INTO T SELECT c0, ... FROM
// aiprof_rows` pulls every row from a C++ generator inside one statement. Compared with
// binding each row to a prepared INSERT (even 64 rows at a time) this skips the per-row
// bind, step and reset calls and SQLite's per-statement work; the rows go straight from
// the model's columns into SQLite's record encoder.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace aiprof::exporter {

// One row under construction; cells are set in column order.
class Row {
 public:
  static constexpr int kMaxColumns = 24;
  Row& Int(int64_t value) { return Set({Cell::kInt, value, 0, {}}); }
  Row& Real(double value) { return Set({Cell::kReal, 0, value, {}}); }
  // `text` must stay valid until the insert statement has finished (model strings do).
  Row& Text(std::string_view text) { return Set({Cell::kText, 0, 0, text}); }
  Row& Null() { return Set({Cell::kNull, 0, 0, {}}); }
  // Text the row keeps until it is cleared: a value computed for this row alone.
  Row& OwnedText(std::string text) {
    if (count_ == kMaxColumns) return *this;
    owned_[count_] = std::move(text);
    return Text(owned_[count_]);
  }

  struct Cell {
    enum Type : uint8_t { kInt, kReal, kText, kNull } type;
    int64_t i;
    double d;
    std::string_view text;
  };
  const Cell& cell(int column) const { return cells_[column]; }
  int columns() const { return count_; }
  void Clear() { count_ = 0; }

 private:
  Row& Set(const Cell& cell) {
    if (count_ < kMaxColumns) cells_[count_++] = cell;
    return *this;
  }
  Cell cells_[kMaxColumns];
  std::string owned_[kMaxColumns];
  int count_ = 0;
};

// Fills `row` with the next row and returns true, or returns false when there are no more.
using RowGenerator = std::function<bool(Row& row)>;

class RowSource {
 public:
  // Registers the aiprof_rows table on `db` (once per connection).
  bool Register(sqlite3* db, std::string* error);
  // Inserts every row of `generator` into `table` (`columns` values per row).
  bool InsertAll(sqlite3* db, const char* table, int columns, const RowGenerator& generator,
                 std::string* error);

  // Read by the virtual table's callbacks.
  const RowGenerator* generator() const { return generator_; }

 private:
  const RowGenerator* generator_ = nullptr;
};

}  // namespace aiprof::exporter
