// A described result's columns (analysis/result_columns.h) in SQLite: their definitions in
// a CREATE TABLE and their cells in a row, so a table's layout and its rows come from the
// one description.
#pragma once

#include <string>
#include <type_traits>

#include "analysis/result_columns.h"
#include "export/sqlite/row_source.h"

namespace aiprof::exporter {

// Appends ", name TYPE" for each column `select` keeps.
template <typename Row, typename Select>
void AppendColumnDefinitions(std::string& sql, analysis::Columns<Row> columns, Select select) {
  for (const analysis::Column<Row>& column : columns) {
    if (!select(column)) continue;
    sql += ", ";
    sql += column.DatabaseName();
    sql += ' ';
    sql += column.DatabaseType();
  }
}

template <typename Row, typename Select>
int CountColumns(analysis::Columns<Row> columns, Select select) {
  int count = 0;
  for (const analysis::Column<Row>& column : columns) count += select(column) ? 1 : 0;
  return count;
}

// Appends the cells of `row`'s columns that `select` keeps.
template <typename Row, typename Select>
void AppendCells(exporter::Row& out, analysis::Columns<Row> columns,
                 const std::type_identity_t<Row>& row, Select select) {
  for (const analysis::Column<Row>& column : columns) {
    if (!select(column)) continue;
    const int64_t value = column.value(row);
    if (column.IsNull(value)) {
      out.Null();
    } else {
      out.Value(column.unit, value);
    }
  }
}

}  // namespace aiprof::exporter
