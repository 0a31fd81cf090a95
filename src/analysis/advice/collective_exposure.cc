#include "analysis/advice/collective_exposure.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"

namespace aiprof::analysis::advice {
namespace {

template <typename T>
T Median(std::vector<T> values) {
  if (values.empty()) return T{};
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  return values[middle];
}

}  // namespace

std::vector<ExposedCollective> ExposedCollectives(const AnalysisSet& set) {
  std::unordered_map<uint32_t, const OverlapScope*> scope_of;  // process row → scope
  for (const OverlapScope& scope : set.overlap.scopes) scope_of[scope.process] = &scope;
  std::vector<ExposedCollective> out;
  for (const CommOpTiming& op : set.communication_analysis.ops) {
    if (op.comm_op >= set.communication.ops.size()) continue;
    const auto scope = scope_of.find(set.communication.ops[op.comm_op].process);
    if (scope == scope_of.end()) continue;
    ExposedCollective row;
    row.op = &op;
    row.duration_ns = std::max<int64_t>(0, op.end_ns - op.time.start_ns);
    row.exposed_ns =
        row.duration_ns - LengthWithin(scope->second->computing, op.time.start_ns, op.end_ns);
    out.push_back(row);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ExposedCollective& a, const ExposedCollective& b) {
                     return a.exposed_ns > b.exposed_ns;
                   });
  return out;
}

AllReduceBuckets SummariseAllReduces(const std::vector<ExposedCollective>& collectives) {
  AllReduceBuckets out;
  std::map<int64_t, uint64_t> per_step;
  std::vector<int64_t> sizes;
  for (const ExposedCollective& row : collectives) {
    const CommOpTiming& op = *row.op;
    if (op.type != model::CommOpType::kAllReduce || op.step < 0 || op.bytes <= 0) continue;
    ++out.count;
    ++per_step[op.step];
    sizes.push_back(op.bytes);
    out.exposed_ns += row.exposed_ns;
    if (out.largest == nullptr || op.bytes > out.largest->op->bytes) out.largest = &row;
  }
  std::vector<uint64_t> counts;
  for (const auto& [step, count] : per_step) counts.push_back(count);
  out.steps = counts.size();
  out.per_step = static_cast<double>(Median(counts));
  out.median_bytes = Median(sizes);
  return out;
}

}  // namespace aiprof::analysis::advice
