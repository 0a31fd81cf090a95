// A described result's columns (analysis/result_columns.h) in SQLite: their definitions in
// a CREATE TABLE and their cells in a row, so a table's layout and its rows come from the
// one description.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

// Appends "name TYPE" for each column `select` keeps (Database::Table's column list).
template <typename Row, typename Select>
void AppendColumnDefinitions(std::vector<std::string>& definitions, analysis::Columns<Row> columns,
                             Select select) {
  for (const analysis::Column<Row>& column : columns) {
    if (!select(column)) continue;
    definitions.push_back(std::string(column.DatabaseName()) + " " +
                          std::string(column.DatabaseType()));
  }
}

template <typename Row, typename Select>
int CountColumns(analysis::Columns<Row> columns, Select select) {
  int count = 0;
  for (const analysis::Column<Row>& column : columns) count += select(column) ? 1 : 0;
  return count;
}

// A described cell as the tables hold its unit (analysis/result_columns.h), into a Row or a
// Statement: NULL, text, a real (µs, ms, rounded shares, reals) or an integer.
template <typename Out>
Out& AppendTableCell(Out& out, analysis::ColumnUnit unit, analysis::CellValue cell) {
  switch (cell.kind) {
    case analysis::CellValue::kNull:
      return out.Null();
    case analysis::CellValue::kText:
      return out.OwnedText(std::move(cell.text));
    case analysis::CellValue::kInteger:
      if (!analysis::HeldAsReal(unit)) return out.Int(cell.integer);
      return out.Real(analysis::RealValue(unit, cell));
    case analysis::CellValue::kReal:
      return out.Real(analysis::RealValue(unit, cell));
  }
  return out.Null();
}

// A described cell as msprof-analyze's cluster tables hold its unit: reals rounded to the
// unit's decimals (analysis::ClusterValue), integers and text as they are.
template <typename Out>
Out& AppendClusterTableCell(Out& out, analysis::ColumnUnit unit, analysis::CellValue cell) {
  if (cell.kind == analysis::CellValue::kReal ||
      (cell.kind == analysis::CellValue::kInteger && analysis::HeldAsReal(unit))) {
    return out.Real(analysis::ClusterValue(unit, cell));
  }
  return AppendTableCell(out, unit, std::move(cell));
}

// The cells of `row`'s columns that `select` keeps, as the cluster's tables hold them
// (AppendClusterTableCell): msprof-analyze's tables of a per-rank result
// (IsClusterTableColumn) and the tables of the cluster's own results (its diagnosis).
template <typename Row, typename Out, typename Select>
Out& AppendClusterCells(Out& out, analysis::Columns<Row> columns,
                        const std::type_identity_t<Row>& row, Select select) {
  for (const analysis::Column<Row>& column : columns) {
    if (select(column)) AppendClusterTableCell(out, column.unit, column.Read(row));
  }
  return out;
}

// Appends the cells of `row`'s columns that `select` keeps (into a Row or a Statement).
template <typename Row, typename Out, typename Select>
Out& AppendCells(Out& out, analysis::Columns<Row> columns, const std::type_identity_t<Row>& row,
                 Select select) {
  for (const analysis::Column<Row>& column : columns) {
    if (select(column)) AppendTableCell(out, column.unit, column.Read(row));
  }
  return out;
}

// The database's columns of a described result.
template <typename Row>
bool IsTableColumn(const analysis::Column<Row>& column) {
  return column.WrittenBy(analysis::kDatabase);
}

// msprof-analyze's cluster table columns of a per-rank result.
template <typename Row>
bool IsClusterTableColumn(const analysis::Column<Row>& column) {
  return column.WrittenBy(analysis::kClusterTables);
}

}  // namespace aiprof::exporter
