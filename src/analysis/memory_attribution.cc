#include "analysis/memory_attribution.h"

#include <algorithm>
#include <unordered_map>

namespace aiprof::analysis {
namespace {

bool IsOperator(const std::vector<uint32_t>& operators, uint32_t slice) {
  return std::binary_search(operators.begin(), operators.end(), slice);
}

// The innermost operator around `ts` on one track: the last operator to start at or before
// `ts` (among equal starts the shortest, which is nested in the others), or the first of
// its enclosing operators still running at `ts`. Operators nest on a track, so the
// innermost one is that operator or one of its ancestors.
class InnermostOperator {
 public:
  InnermostOperator(const model::Model& model, const std::vector<uint32_t>& operators)
      : model_(model), operators_(operators) {
    const model::SliceTable& s = model.slices;
    for (uint32_t row : operators) by_track_[s.track[row]].push_back(row);
    for (auto& [track, rows] : by_track_) {
      std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
        return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : s.end[a] > s.end[b];
      });
    }
  }

  uint32_t At(uint32_t track, int64_t ts) const {
    auto found = by_track_.find(track);
    if (found == by_track_.end()) return model::kNoRow;
    const std::vector<uint32_t>& rows = found->second;
    const model::SliceTable& s = model_.slices;
    auto it = std::upper_bound(rows.begin(), rows.end(), ts,
                               [&](int64_t t, uint32_t row) { return t < s.ts[row]; });
    if (it == rows.begin()) return model::kNoRow;
    for (uint32_t row = *(it - 1); row != model::kNoRow;
         row = EnclosingOperator(model_, operators_, row)) {
      if (s.end[row] >= ts) return row;
    }
    return model::kNoRow;
  }

 private:
  const model::Model& model_;
  const std::vector<uint32_t>& operators_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_track_;
};

}  // namespace

uint32_t EnclosingOperator(const model::Model& model, const std::vector<uint32_t>& operators,
                           uint32_t slice) {
  for (uint32_t up = model.slices.parent[slice]; up != model::kNoRow;
       up = model.slices.parent[up]) {
    if (IsOperator(operators, up)) return up;
  }
  return model::kNoRow;
}

MemoryAttribution AttributeToOperators(const model::Model& model,
                                       const std::vector<uint32_t>& operators,
                                       const std::vector<AttributedEvent>& events) {
  MemoryAttribution result;
  result.operator_of_event.assign(events.size(), model::kNoRow);
  if (operators.empty()) return result;
  const InnermostOperator innermost(model, operators);
  std::unordered_map<uint32_t, OperatorMemoryUsage> usage;
  for (size_t i = 0; i < events.size(); ++i) {
    const AttributedEvent& event = events[i];
    const uint32_t op = innermost.At(event.track, event.ts);
    result.operator_of_event[i] = op;
    if (op == model::kNoRow) continue;
    OperatorMemoryUsage& own = usage[op];
    if (event.device) {
      own.self_device_bytes += event.bytes;
      ++own.device_events;
    } else {
      own.self_host_bytes += event.bytes;
      ++own.host_events;
    }
  }
  // Inclusive figures: each operator's own events added to it and to every enclosing
  // operator (one walk per operator with events, not per event).
  std::vector<std::pair<uint32_t, OperatorMemoryUsage>> own(usage.begin(), usage.end());
  for (auto& [op, self] : own) {
    for (uint32_t row = op; row != model::kNoRow; row = EnclosingOperator(model, operators, row)) {
      OperatorMemoryUsage& total = usage[row];
      total.host_bytes += self.self_host_bytes;
      total.device_bytes += self.self_device_bytes;
      if (row != op) {
        total.host_events += self.host_events;
        total.device_events += self.device_events;
      }
    }
  }
  result.operators.reserve(usage.size());
  for (auto& [op, figures] : usage) {
    figures.slice = op;
    result.operators.push_back(figures);
  }
  std::sort(
      result.operators.begin(), result.operators.end(),
      [](const OperatorMemoryUsage& a, const OperatorMemoryUsage& b) { return a.slice < b.slice; });
  return result;
}

}  // namespace aiprof::analysis
