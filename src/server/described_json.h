// A described result's row (analysis/result_columns.h) as the UI API sends it: the columns the
// UI shows, `,"key":value` each, so every endpoint spells a unit the same way and its
// TypeScript type (web/src/api.ts) is checked against the same description.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "analysis/result_columns.h"
#include "server/json_text.h"

namespace aiprof::server {

// The UI's columns of `row` as `,"key":value`: null when not known, times from the run's
// origin, flags as booleans.
template <typename Row>
void AppendColumns(std::string& out, analysis::Columns<Row> columns,
                   const std::type_identity_t<Row>& row, int64_t origin_ns) {
  for (const analysis::Column<Row>& column : columns) {
    if (!column.WrittenBy(analysis::kUi)) continue;
    out += ",\"";
    out += column.key;
    out += "\":";
    const analysis::CellValue cell = column.Read(row);
    switch (cell.kind) {
      case analysis::CellValue::kNull:
        out += "null";
        break;
      case analysis::CellValue::kText:
        AppendJsonString(out, cell.text);
        break;
      case analysis::CellValue::kReal:
        AppendJsonNumber(out, cell.real);
        break;
      case analysis::CellValue::kInteger:
        if (column.unit == analysis::ColumnUnit::kFlag) {
          out += cell.integer != 0 ? "true" : "false";
        } else {
          const bool time = column.unit == analysis::ColumnUnit::kTimestamp;
          out += std::to_string(cell.integer - (time ? origin_ns : 0));
        }
        break;
    }
  }
}

// The row as a JSON object: `own` (the writer's keys, `"key":value,...` without the braces;
// may be empty) followed by the UI's columns of `row`.
template <typename Row>
void AppendObject(std::string& out, std::string_view own, analysis::Columns<Row> columns,
                  const std::type_identity_t<Row>& row, int64_t origin_ns) {
  const size_t open = out.size();
  out += '{';
  out += own;
  AppendColumns<Row>(out, columns, row, origin_ns);
  if (own.empty() && out.size() > open + 1) out.erase(open + 1, 1);  // the first column's ','
  out += '}';
}

}  // namespace aiprof::server
