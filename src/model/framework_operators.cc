#include "model/framework_operators.h"

#include <algorithm>

namespace aiprof::model {

std::vector<uint32_t> FrameworkOperatorRows(const Model& model) {
  std::vector<uint32_t> rows;
  const StringId cpu_op = model.strings.Find("cpu_op");
  const StringId user_annotation = model.strings.Find("user_annotation");
  if (cpu_op == StringPool::kMissing && user_annotation == StringPool::kMissing) return rows;
  std::vector<uint32_t> marker_ranges;
  for (size_t i = 0; i < model.markers.size(); ++i) {
    if (!model.markers.is_instant[i]) marker_ranges.push_back(model.markers.row[i]);
  }
  std::sort(marker_ranges.begin(), marker_ranges.end());
  const SliceTable& s = model.slices;
  for (uint32_t row = 0; row < s.size(); ++row) {
    const StringId category = s.category[row];
    if (category != cpu_op && category != user_annotation) continue;
    if (category == user_annotation &&
        std::binary_search(marker_ranges.begin(), marker_ranges.end(), row)) {
      continue;
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace aiprof::model
