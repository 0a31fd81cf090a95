// The tests' readings of a description (analysis/result_columns.h): one column of a row by
// its key (a missing key fails the test), and the summary files' headers.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

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

// The headers of the columns the summary files write, in order.
template <typename Row>
std::vector<std::string> FileHeaders(Columns<Row> columns) {
  std::vector<std::string> headers;
  for (const Column<Row>& column : columns) {
    if (column.WrittenBy(kFiles)) headers.emplace_back(column.header);
  }
  return headers;
}

}  // namespace aiprof::analysis::testing
