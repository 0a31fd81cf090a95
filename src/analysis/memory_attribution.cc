#include "analysis/memory_attribution.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/slices_by_start.h"

namespace aiprof::analysis {
namespace {

// The innermost operator around `ts` on one thread: among the thread's operators by start,
// the last to start at or before `ts`, or the first of its enclosing operators still running.
class InnermostOperator {
 public:
  InnermostOperator(const model::Model& model, const model::FrameworkOperators& operators)
      : slices_(model.slices),
        operators_(operators),
        by_start_(model.slices, RowOfOperator{&operators}) {
    for (uint32_t i = 0; i < operators.size(); ++i) {
      by_start_.Add(model.ThreadOfSlice(operators.rows[i]), i);
    }
    by_start_.Sort();
  }

  // Index into operators.rows, kNoRow when no operator of the thread holds `ts`.
  uint32_t At(uint32_t thread, int64_t ts) const {
    for (uint32_t i = by_start_.LastStartedBy(thread, ts); i != model::kNoRow;
         i = operators_.parent[i]) {
      if (slices_.end[operators_.rows[i]] >= ts) return i;
    }
    return model::kNoRow;
  }

 private:
  struct RowOfOperator {
    const model::FrameworkOperators* operators;
    uint32_t operator()(uint32_t i) const { return operators->rows[i]; }
  };
  const model::SliceTable& slices_;
  const model::FrameworkOperators& operators_;
  SlicesByStart<RowOfOperator> by_start_;
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
