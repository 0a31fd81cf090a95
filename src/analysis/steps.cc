#include "analysis/steps.h"

#include <algorithm>
#include <string>

namespace aiprof::analysis {

StepList StepsOf(const model::Model& model, const std::optional<model::StepRange>& selection) {
  const model::StepTable& table = model.steps;
  StepList list;
  list.source = model::RunStepSource(model);
  list.several_loops = model::HasSeveralLoops(model);
  std::vector<uint32_t> rows;
  std::string error;
  if (selection) {
    model::SelectSteps(model, *selection, &rows, &error);
  } else {
    rows.resize(table.size());
    for (uint32_t row = 0; row < table.size(); ++row) rows[row] = row;
  }
  list.steps.reserve(rows.size());
  for (uint32_t row : rows) {
    list.steps.push_back({row, table.step[row], model.step_loops.ordinal[table.loop[row]],
                          table.thread[row], table.slice[row], table.ts[row], table.end[row]});
  }
  std::stable_sort(list.steps.begin(), list.steps.end(), [](const StepSpan& a, const StepSpan& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.begin_ns < b.begin_ns;
  });
  return list;
}

}  // namespace aiprof::analysis
