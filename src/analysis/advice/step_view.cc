#include "analysis/advice/step_view.h"

#include <algorithm>
#include <map>

namespace aiprof::analysis::advice {

std::vector<const StepBreakdownRow*> MainScopeRows(const AnalysisSet& analyses) {
  std::map<uint32_t, int64_t> computing;
  for (const StepBreakdownRow& row : analyses.step_breakdown.rows) {
    if (row.has_tasks) computing[row.scope] += row.computing_ns + row.communication_ns;
  }
  std::vector<const StepBreakdownRow*> rows;
  if (computing.empty()) return rows;
  const uint32_t scope =
      std::max_element(computing.begin(), computing.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  for (const StepBreakdownRow& row : analyses.step_breakdown.rows) {
    if (row.scope == scope) rows.push_back(&row);
  }
  std::sort(rows.begin(), rows.end(), [](const StepBreakdownRow* a, const StepBreakdownRow* b) {
    return a->begin_ns < b->begin_ns;
  });
  return rows;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

}  // namespace aiprof::analysis::advice
