#include "model/framework_operators.h"

#include <algorithm>
#include <unordered_map>

namespace aiprof::model {
namespace {

std::vector<uint32_t> OperatorRows(const Model& model) {
  std::vector<uint32_t> rows;
  const StringId cpu_op = model.strings.Find("cpu_op");
  const StringId user_annotation = model.strings.Find("user_annotation");
  if (cpu_op == StringPool::kMissing && user_annotation == StringPool::kMissing) return rows;
  // Ranges that are no operator: markers, and step records (prof.step() without a
  // schedule, aiprofStepBegin), which torch does not list either.
  std::vector<uint32_t> marker_ranges;
  for (size_t i = 0; i < model.markers.size(); ++i) {
    if (!model.markers.is_instant[i]) marker_ranges.push_back(model.markers.row[i]);
  }
  for (uint32_t slice : model.recorded_steps.slice) {
    if (slice != kNoRow) marker_ranges.push_back(slice);
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

}  // namespace

uint32_t FrameworkOperators::IndexOf(uint32_t slice) const {
  auto found = std::lower_bound(rows.begin(), rows.end(), slice);
  return found != rows.end() && *found == slice ? static_cast<uint32_t>(found - rows.begin())
                                                : kNoRow;
}

FrameworkOperators FindFrameworkOperators(const Model& model) {
  FrameworkOperators ops;
  ops.rows = OperatorRows(model);
  ops.parent.assign(ops.rows.size(), kNoRow);
  const SliceTable& s = model.slices;
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_thread;  // indexes into rows
  for (uint32_t i = 0; i < ops.rows.size(); ++i) {
    by_thread[model.ThreadOfSlice(ops.rows[i])].push_back(i);
  }
  std::vector<uint32_t> open;  // each interval inside every one below it
  for (auto& [thread, indexes] : by_thread) {
    std::sort(indexes.begin(), indexes.end(), [&](uint32_t a, uint32_t b) {
      const uint32_t ra = ops.rows[a], rb = ops.rows[b];
      return s.ts[ra] != s.ts[rb] ? s.ts[ra] < s.ts[rb] : s.end[ra] > s.end[rb];
    });
    open.clear();
    for (uint32_t index : indexes) {
      const uint32_t row = ops.rows[index];
      while (!open.empty()) {
        const uint32_t top = ops.rows[open.back()];
        if (s.ts[row] >= s.end[top] || s.end[row] > s.end[top]) {
          open.pop_back();  // ended before it, or not holding all of it
          continue;
        }
        ops.parent[index] = open.back();
        break;
      }
      open.push_back(index);
    }
  }
  return ops;
}

std::vector<int64_t> OperatorSelfTimes(const Model& model, const FrameworkOperators& operators) {
  const SliceTable& s = model.slices;
  std::vector<int64_t> self(operators.size());
  for (size_t i = 0; i < operators.size(); ++i) self[i] = s.dur(operators.rows[i]);
  for (size_t i = 0; i < operators.size(); ++i) {
    if (operators.parent[i] != kNoRow) self[operators.parent[i]] -= s.dur(operators.rows[i]);
  }
  return self;
}

}  // namespace aiprof::model
