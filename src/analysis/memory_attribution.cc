#include "analysis/memory_attribution.h"

#include <algorithm>
#include <unordered_map>

namespace aiprof::analysis {
namespace {

// The innermost operator around `ts` on one thread: the last operator to start at or before
// `ts` (among equal starts the shortest, which the others hold), or the first of its
// enclosing operators still running at `ts`. The innermost one started after every other
// operator holding `ts`, so the last to start is it or lies inside it, and ended before `ts`.
class InnermostOperator {
 public:
  InnermostOperator(const model::Model& model, const model::FrameworkOperators& operators)
      : model_(model), operators_(operators) {
    const model::SliceTable& s = model.slices;
    for (uint32_t i = 0; i < operators.size(); ++i) {
      by_thread_[model.ThreadOfSlice(operators.rows[i])].push_back(i);
    }
    for (auto& [thread, indexes] : by_thread_) {
      std::sort(indexes.begin(), indexes.end(), [&](uint32_t a, uint32_t b) {
        const uint32_t ra = operators.rows[a], rb = operators.rows[b];
        return s.ts[ra] != s.ts[rb] ? s.ts[ra] < s.ts[rb] : s.end[ra] > s.end[rb];
      });
    }
  }

  // Index into operators.rows, kNoRow when no operator of the thread holds `ts`.
  uint32_t At(uint32_t thread, int64_t ts) const {
    auto found = by_thread_.find(thread);
    if (found == by_thread_.end()) return model::kNoRow;
    const std::vector<uint32_t>& indexes = found->second;
    const model::SliceTable& s = model_.slices;
    auto it = std::upper_bound(indexes.begin(), indexes.end(), ts,
                               [&](int64_t t, uint32_t i) { return t < s.ts[operators_.rows[i]]; });
    if (it == indexes.begin()) return model::kNoRow;
    for (uint32_t i = *(it - 1); i != model::kNoRow; i = operators_.parent[i]) {
      if (s.end[operators_.rows[i]] >= ts) return i;
    }
    return model::kNoRow;
  }

 private:
  const model::Model& model_;
  const model::FrameworkOperators& operators_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_thread_;
};

}  // namespace

MemoryAttribution AttributeToOperators(const model::Model& model,
                                       const model::FrameworkOperators& operators,
                                       const std::vector<AttributedEvent>& events) {
  MemoryAttribution result;
  result.operator_of_event.assign(events.size(), model::kNoRow);
  if (operators.size() == 0) return result;
  const InnermostOperator innermost(model, operators);
  std::unordered_map<uint32_t, OperatorMemoryUsage> usage;  // by index into operators.rows
  for (size_t e = 0; e < events.size(); ++e) {
    const AttributedEvent& event = events[e];
    const uint32_t op = innermost.At(event.thread, event.ts);
    if (op == model::kNoRow) continue;
    result.operator_of_event[e] = operators.rows[op];
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
  const std::vector<std::pair<uint32_t, OperatorMemoryUsage>> own(usage.begin(), usage.end());
  for (const auto& [op, self] : own) {
    for (uint32_t i = op; i != model::kNoRow; i = operators.parent[i]) {
      OperatorMemoryUsage& total = usage[i];
      total.host_bytes += self.self_host_bytes;
      total.device_bytes += self.self_device_bytes;
      if (i != op) {
        total.host_events += self.host_events;
        total.device_events += self.device_events;
      }
    }
  }
  result.operators.reserve(usage.size());
  for (auto& [op, figures] : usage) {
    figures.slice = operators.rows[op];
    result.operators.push_back(figures);
  }
  std::sort(
      result.operators.begin(), result.operators.end(),
      [](const OperatorMemoryUsage& a, const OperatorMemoryUsage& b) { return a.slice < b.slice; });
  return result;
}

}  // namespace aiprof::analysis
