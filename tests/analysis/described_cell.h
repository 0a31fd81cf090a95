// The tests' reading of one described column of a row, by its key (analysis/result_columns.h):
// a missing key fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "analysis/result_columns.h"

namespace aiprof::analysis::testing {

template <typename Row>
CellValue Cell(Columns<Row> columns, std::string_view key, const Row& row) {
  for (const Column<Row>& column : columns) {
    if (column.key == key) return column.Read(row);
  }
  ADD_FAILURE() << "no column " << key;
  return {};
}

}  // namespace aiprof::analysis::testing
