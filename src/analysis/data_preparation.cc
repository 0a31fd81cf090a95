#include "analysis/data_preparation.h"

#include <algorithm>
#include <string_view>

#include "analysis/input_wait.h"
#include "analysis/intervals.h"

namespace aiprof::analysis {
namespace {

enum NameKind : uint8_t { kOther = 0, kDataLoaderOp = 1, kDataRange = 2 };

NameKind Classify(std::string_view name) {
  if (!IsInputWaitName(name)) return kOther;
  return name.starts_with("enumerate(DataLoader)") || name.starts_with("enumerate(DataPipe)")
             ? kDataLoaderOp
             : kDataRange;
}

}  // namespace

DataPreparationResult ComputeDataPreparation(const model::Model& model, const StepList& steps) {
  DataPreparationResult result;
  const model::SliceTable& s = model.slices;

  std::vector<uint8_t> kind(model.strings.size(), kOther);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    kind[id] = Classify(model.strings.Get(id));
  }
  std::vector<uint8_t> runs_steps(model.threads.size(), 0);
  for (const StepSpan& step : steps.steps) runs_steps[step.thread] = 1;

  std::vector<std::vector<Interval>> waits(model.threads.size());
  // The wait ranges themselves, per thread, by start: which slice a step waited in.
  struct WaitSlice {
    int64_t begin, end;
    uint32_t row;
  };
  std::vector<std::vector<WaitSlice>> wait_slices(model.threads.size());
  std::vector<Interval> loaders;
  bool saw_dataloader_op = false, saw_wait_range = false;
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint8_t k = kind[s.name[row]];
    if (k == kOther) continue;
    const uint32_t thread = model.ThreadOfSlice(row);
    if (runs_steps[thread]) {
      waits[thread].push_back({s.ts[row], s.end[row]});
      wait_slices[thread].push_back({s.ts[row], s.end[row], row});
      saw_dataloader_op |= k == kDataLoaderOp;
      saw_wait_range |= k == kDataRange;
    } else {
      loaders.push_back({s.ts[row], s.end[row]});
    }
  }
  if (saw_dataloader_op) result.inputs.emplace_back("DataLoader operators");
  if (saw_wait_range) result.inputs.emplace_back("wait ranges");
  if (!loaders.empty()) result.inputs.emplace_back("loader ranges");
  result.has_queue_view = !loaders.empty();

  std::vector<int64_t> loader_ends;
  loader_ends.reserve(loaders.size());
  for (const Interval& loader : loaders) loader_ends.push_back(loader.end);
  std::sort(loader_ends.begin(), loader_ends.end());
  std::vector<Interval> loader_busy = std::move(loaders);
  MergeInPlace(loader_busy);
  for (auto& thread_waits : waits) MergeInPlace(thread_waits);
  std::vector<int64_t> longest_wait(model.threads.size(), 0);
  for (size_t thread = 0; thread < wait_slices.size(); ++thread) {
    auto& list = wait_slices[thread];
    std::sort(list.begin(), list.end(),
              [](const WaitSlice& a, const WaitSlice& b) { return a.begin < b.begin; });
    for (const WaitSlice& w : list)
      longest_wait[thread] = std::max(longest_wait[thread], w.end - w.begin);
  }

  std::vector<const StepSpan*> by_id;
  by_id.reserve(steps.steps.size());
  for (const StepSpan& step : steps.steps) by_id.push_back(&step);
  std::sort(by_id.begin(), by_id.end(),
            [](const StepSpan* a, const StepSpan* b) { return a->id < b->id; });
  result.steps.reserve(steps.steps.size());
  for (const StepSpan* span : by_id) {
    const StepSpan& step = *span;
    DataPreparationStep row;
    row.step_id = step.id;
    row.step = step.step;
    row.loop = step.loop;
    row.first_wait = static_cast<uint32_t>(result.wait_intervals.size());
    row.thread = step.thread;
    row.queue_known = result.has_queue_view;
    row.begin_ns = step.begin_ns;
    row.end_ns = step.end_ns;
    const std::vector<Interval>& thread_waits = waits[row.thread];
    row.wait_ns = LengthWithin(thread_waits, row.begin_ns, row.end_ns);
    row.loader_busy_ns = LengthWithin(loader_busy, row.begin_ns, row.end_ns);
    auto wait = std::upper_bound(thread_waits.begin(), thread_waits.end(), row.begin_ns,
                                 [](int64_t t, const Interval& w) { return t < w.end; });
    for (; wait != thread_waits.end() && wait->begin < row.end_ns; ++wait) {
      ++row.waits;
      result.wait_intervals.push_back(
          {std::max(wait->begin, row.begin_ns), std::min(wait->end, row.end_ns)});
      // A loader range that ended inside (begin, end] of the wait handed over a fresh batch.
      auto end = std::upper_bound(loader_ends.begin(), loader_ends.end(), wait->begin);
      row.queue_empty |= end != loader_ends.end() && *end <= wait->end;
    }
    // The wait slice overlapping the step most: those starting after begin - the thread's
    // longest wait, up to the step's end.
    const std::vector<WaitSlice>& slices = wait_slices[row.thread];
    auto first =
        std::lower_bound(slices.begin(), slices.end(), row.begin_ns - longest_wait[row.thread],
                         [](const WaitSlice& w, int64_t t) { return w.begin < t; });
    int64_t best = 0;
    for (auto w = first; w != slices.end() && w->begin < row.end_ns; ++w) {
      const int64_t inside = std::min(w->end, row.end_ns) - std::max(w->begin, row.begin_ns);
      if (inside > best) {
        best = inside;
        row.longest_wait_slice = w->row;
      }
    }
    result.total_wait_ns += row.wait_ns;
    result.total_step_ns += row.duration_ns();
    result.empty_queue_steps += row.queue_empty;
    result.steps.push_back(row);
  }
  return result;
}

uint32_t DataPreparationResult::RowOfStep(uint32_t step_id) const {
  auto found = std::lower_bound(
      steps.begin(), steps.end(), step_id,
      [](const DataPreparationStep& step, uint32_t id) { return step.step_id < id; });
  if (found == steps.end() || found->step_id != step_id) return model::kNoRow;
  return static_cast<uint32_t>(found - steps.begin());
}

int64_t DataPreparationResult::WaitWithin(uint32_t row, int64_t begin, int64_t end) const {
  const DataPreparationStep& step = steps[row];
  int64_t length = 0;
  for (uint32_t i = step.first_wait; i < step.first_wait + step.waits; ++i) {
    length += std::max<int64_t>(
        0, std::min(end, wait_intervals[i].end) - std::max(begin, wait_intervals[i].begin));
  }
  return length;
}

}  // namespace aiprof::analysis
