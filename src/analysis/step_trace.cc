#include "analysis/step_trace.h"

#include <algorithm>
#include <string_view>

#include "model/ascii_case.h"
#include "model/huge_pages.h"

namespace aiprof::analysis {
std::vector<StepTraceRow> ComputeStepTrace(const model::Model& model,
                                           const std::vector<StepSpan>& steps) {
  const model::SliceTable& s = model.slices;
  std::vector<StepTraceRow> rows(steps.size());
  for (uint32_t i = 0; i < steps.size(); ++i) {
    rows[i].step_id = steps[i].id;
    rows[i].step = steps[i].step;
    rows[i].loop = steps[i].loop;
    rows[i].thread = steps[i].thread;
    rows[i].slice = steps[i].slice;
    rows[i].begin_ns = steps[i].begin_ns;
    rows[i].iteration_end_ns = steps[i].end_ns;
  }
  // StepsOf orders the steps by thread, then begin: the order the search below needs.
  auto ordered = [](const StepSpan& a, const StepSpan& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.begin_ns < b.begin_ns;
  };
  std::vector<uint32_t> order(steps.size());
  for (uint32_t i = 0; i < steps.size(); ++i) order[i] = i;
  if (!std::is_sorted(steps.begin(), steps.end(), ordered)) {
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return ordered(steps[a], steps[b]); });
  }
  // Name classes are decided once per string, not per slice.
  std::vector<uint8_t> name_class(model.strings.size(), 0);  // 1 forward, 2 backward
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    if (model::ContainsNoCase(text, "backward")) {
      name_class[id] = 2;
    } else if (model::ContainsNoCase(text, "forward")) {
      name_class[id] = 1;
    }
  }
  std::vector<uint8_t> is_step_slice;
  model::AssignOnHugePages(is_step_slice, s.size(), uint8_t{0});
  std::vector<uint8_t> thread_has_steps(model.threads.size(), 0);
  for (const StepSpan& r : steps) {
    if (r.slice != model::kNoRow) is_step_slice[r.slice] = 1;
    thread_has_steps[r.thread] = 1;
  }

  std::vector<int64_t> first_child(steps.size(), INT64_MAX), last_child(steps.size(), INT64_MIN);
  std::vector<int64_t> forward(steps.size(), INT64_MAX), backward(steps.size(), INT64_MIN);
  auto key_before = [&](const std::pair<uint32_t, int64_t>& key, uint32_t step) {
    if (key.first != steps[step].thread) return key.first < steps[step].thread;
    return key.second < steps[step].begin_ns;
  };
  // Slices of a thread come mostly in time order, so the position found for the thread's
  // previous slice usually holds again; the binary search runs only when it does not.
  std::vector<size_t> hint(model.threads.size(), 0);
  for (uint32_t row = 0; row < s.size(); ++row) {
    uint32_t thread = model.ThreadOfSlice(row);
    // Device streams and helper threads hold no steps: their slices belong to none.
    if (!thread_has_steps[thread] || is_step_slice[row]) continue;
    // The last step of this thread starting at or before the slice.
    std::pair key{thread, s.ts[row]};
    size_t at = hint[thread];
    bool hint_holds = (at == order.size() || key_before(key, order[at])) &&
                      (at == 0 || !key_before(key, order[at - 1]));
    auto it = hint_holds ? order.begin() + static_cast<std::ptrdiff_t>(at)
                         : std::upper_bound(order.begin(), order.end(), key, key_before);
    hint[thread] = static_cast<size_t>(it - order.begin());
    if (it == order.begin()) continue;
    uint32_t step = *(it - 1);
    if (steps[step].thread != thread || s.end[row] > steps[step].end_ns) continue;
    first_child[step] = std::min(first_child[step], s.ts[row]);
    last_child[step] = std::max(last_child[step], s.end[row]);
    uint8_t cls = name_class[s.name[row]];
    if (cls == 1) forward[step] = std::min(forward[step], s.ts[row]);
    if (cls == 2) backward[step] = std::max(backward[step], s.end[row]);
  }
  for (uint32_t i = 0; i < steps.size(); ++i) {
    StepTraceRow& r = rows[i];
    r.fp_start_ns = forward[i] != INT64_MAX       ? forward[i]
                    : first_child[i] != INT64_MAX ? first_child[i]
                                                  : r.begin_ns;
    r.bp_end_ns = backward[i] != INT64_MIN     ? backward[i]
                  : last_child[i] != INT64_MIN ? last_child[i]
                                               : r.iteration_end_ns;
  }
  for (size_t k = 1; k < order.size(); ++k) {
    uint32_t previous = order[k - 1], current = order[k];
    if (steps[previous].thread != steps[current].thread) continue;
    rows[current].has_data_aug_bound = true;
    rows[current].data_aug_bound_ns = rows[current].fp_start_ns - rows[previous].iteration_end_ns;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const StepTraceRow& a, const StepTraceRow& b) {
    return a.step_id < b.step_id;
  });
  return rows;
}

}  // namespace aiprof::analysis
