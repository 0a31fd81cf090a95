#include "analysis/compare/compare_columns.h"

namespace aiprof::analysis {

std::vector<Column<NameDelta>> NameDeltaFileColumns(CallKind kind, CompareGroupBy group_by) {
  const bool operators = kind == CallKind::kOperators;
  const bool shapes = operators && group_by == CompareGroupBy::kNameAndShape;
  std::vector<Column<NameDelta>> columns;
  for (Column<NameDelta> column : kNameDeltaColumns) {
    if (column.key == "input_shape" && !shapes) continue;
    if (column.key == "name" && !operators) column.header = "Kernel";
    columns.push_back(column);
  }
  return columns;
}

}  // namespace aiprof::analysis
