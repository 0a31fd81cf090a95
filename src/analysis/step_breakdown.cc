#include "analysis/step_breakdown.h"

#include <algorithm>

namespace aiprof::analysis {
namespace {

// End of the last interval of `merged` that begins before `t`; INT64_MIN when none does.
int64_t LastEndOfBegunBefore(const std::vector<Interval>& merged, int64_t t) {
  auto it = std::lower_bound(merged.begin(), merged.end(), t,
                             [](const Interval& i, int64_t value) { return i.begin < value; });
  return it == merged.begin() ? INT64_MIN : (it - 1)->end;
}

// Start of the first task inside [begin, end); INT64_MAX when there is none.
int64_t FirstStartWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  auto it = std::upper_bound(merged.begin(), merged.end(), begin,
                             [](int64_t t, const Interval& i) { return t < i.end; });
  if (it == merged.end() || it->begin >= end) return INT64_MAX;
  return std::max(it->begin, begin);
}

// The steps a scope is measured in: those of its own process (CPU-only runs); for a
// device, those of the host processes of the same host and rank. Of the chosen process,
// the thread with the most steps; by begin.
std::vector<StepSpan> StepsOfScope(const model::Model& model, const OverlapScope& scope,
                                   const StepList& steps) {
  const model::ProcessTable& p = model.processes;
  auto matches = [&](uint32_t process) {
    if (process == scope.process) return true;
    if (scope.device_id < 0 || p.device_id[process] >= 0) return false;
    if (p.host[process] != p.host[scope.process]) return false;
    return scope.rank < 0 || p.rank[process] < 0 || p.rank[process] == scope.rank;
  };
  uint32_t chosen_process = model::kNoRow;
  std::vector<uint32_t> count(model.threads.size(), 0);
  for (const StepSpan& r : steps.steps) {
    uint32_t process = model.ProcessOfThread(r.thread);
    if (!matches(process)) continue;
    // The scope's own process wins over another process of the same host.
    if (chosen_process == model::kNoRow || process == scope.process) chosen_process = process;
  }
  for (const StepSpan& r : steps.steps) {
    if (model.ProcessOfThread(r.thread) == chosen_process) ++count[r.thread];
  }
  auto busiest = std::max_element(count.begin(), count.end());
  std::vector<StepSpan> out;
  if (busiest == count.end() || *busiest == 0) return out;
  uint32_t thread = static_cast<uint32_t>(busiest - count.begin());
  for (const StepSpan& r : steps.steps) {
    if (r.thread == thread) out.push_back(r);
  }
  return out;
}

// Adds each lane's time within each window; windows are by begin and disjoint.
void AccumulateLanes(const OverlapScope& scope, std::vector<StepBreakdownRow>& rows) {
  size_t first[kOverlapLaneCount] = {0, 0, 0, 0};
  ForEachLaneInterval(scope, [&](OverlapLane lane, const Interval& i) {
    size_t& p = first[static_cast<int>(lane)];
    while (p < rows.size() && rows[p].end_ns <= i.begin) ++p;
    for (size_t q = p; q < rows.size() && rows[q].begin_ns < i.end; ++q) {
      int64_t length = std::min(i.end, rows[q].end_ns) - std::max(i.begin, rows[q].begin_ns);
      if (length <= 0) continue;
      StepBreakdownRow& r = rows[q];
      switch (lane) {
        case OverlapLane::kComputing:
          r.computing_ns += length;
          break;
        case OverlapLane::kCommunication:
          r.communication_ns += length;
          break;
        case OverlapLane::kCommunicationNotOverlapped:
          r.communication_not_overlapped_ns += length;
          break;
        case OverlapLane::kFree:  // the window's Free is what its tasks leave (below)
          break;
      }
    }
  });
  size_t p = 0;
  for (const Interval& i : scope.receive) {
    while (p < rows.size() && rows[p].end_ns <= i.begin) ++p;
    for (size_t q = p; q < rows.size() && rows[q].begin_ns < i.end; ++q) {
      int64_t length = std::min(i.end, rows[q].end_ns) - std::max(i.begin, rows[q].begin_ns);
      if (length > 0) rows[q].bubble_ns += length;
    }
  }
}

// Each window's Free: the window less its tasks (Computing ∪ Communication), so the parts
// add up to the window even where it begins before the scope's first task or ends after its
// last (the overlap's Free lane only spans the tasks). The part of it inside the step's
// input-wait intervals is its Input wait.
void AccumulateFree(const OverlapScope& scope, const DataPreparationResult& preparation,
                    const std::vector<uint32_t>& preparation_rows,
                    std::vector<StepBreakdownRow>& rows) {
  for (StepBreakdownRow& r : rows) {
    r.free_ns = (r.end_ns - r.begin_ns) - r.computing_ns - r.communication_not_overlapped_ns;
  }
  // The tasks' union only where a step waits for input (it is a copy of Computing's size).
  if (std::all_of(preparation_rows.begin(), preparation_rows.end(),
                  [](uint32_t row) { return row == model::kNoRow; })) {
    return;
  }
  // Without communication the tasks are Computing, merged already: read, not copied.
  std::vector<Interval> both;
  if (!scope.communication.empty()) {
    both = scope.computing;
    both.insert(both.end(), scope.communication.begin(), scope.communication.end());
    MergeInPlace(both);
  }
  const std::vector<Interval>& busy = scope.communication.empty() ? scope.computing : both;
  size_t p = 0;
  for (size_t q = 0; q < rows.size(); ++q) {
    StepBreakdownRow& r = rows[q];
    if (preparation_rows[q] == model::kNoRow) continue;
    while (p < busy.size() && busy[p].end <= r.begin_ns) ++p;
    int64_t cursor = r.begin_ns;
    for (size_t b = p; cursor < r.end_ns; ++b) {
      const int64_t gap_end = b < busy.size() ? std::min(busy[b].begin, r.end_ns) : r.end_ns;
      if (cursor < gap_end) {
        r.input_wait_ns += preparation.WaitWithin(preparation_rows[q], cursor, gap_end);
      }
      if (b >= busy.size()) break;
      cursor = std::max(cursor, busy[b].end);
    }
  }
}

}  // namespace

StepBreakdownResult ComputeStepBreakdown(const model::Model& model, const OverlapResult& overlap,
                                         const StepList& steps,
                                         const DataPreparationResult& data_preparation) {
  StepBreakdownResult result;
  result.step_source = steps.source;
  result.trace = ComputeStepTrace(model, steps.steps);
  for (uint32_t index = 0; index < overlap.scopes.size(); ++index) {
    const OverlapScope& scope = overlap.scopes[index];
    std::vector<StepSpan> own = StepsOfScope(model, scope, steps);
    const bool has_steps = !own.empty();
    if (!has_steps) {
      own.push_back({model::kNoRow, 0, 0, 0, model::kNoRow, scope.first_ns, scope.last_ns});
    }
    std::vector<StepBreakdownRow> rows(own.size());
    std::vector<uint32_t> preparation_rows(own.size(), model::kNoRow);
    for (size_t i = 0; i < own.size(); ++i) {
      StepBreakdownRow& r = rows[i];
      r.step_id = own[i].id;
      r.step = own[i].step;
      r.loop = own[i].loop;
      if (has_steps) preparation_rows[i] = data_preparation.RowOfStep(own[i].id);
      r.scope = index;
      r.device_id = scope.device_id;
      r.rank = scope.rank;
      r.begin_ns = own[i].begin_ns;
      r.host_end_ns = own[i].end_ns;
      int64_t next = i + 1 < own.size() ? own[i + 1].begin_ns : INT64_MAX;
      int64_t last_task_end = std::max(LastEndOfBegunBefore(scope.computing, r.host_end_ns),
                                       LastEndOfBegunBefore(scope.communication, r.host_end_ns));
      r.end_ns = std::min(std::max(r.host_end_ns, last_task_end), std::max(r.host_end_ns, next));
      int64_t first_task = std::min(FirstStartWithin(scope.computing, r.begin_ns, r.end_ns),
                                    FirstStartWithin(scope.communication, r.begin_ns, r.end_ns));
      r.has_tasks = first_task != INT64_MAX;
      r.preparing_ns = r.has_tasks ? first_task - r.begin_ns : 0;
    }
    AccumulateLanes(scope, rows);
    AccumulateFree(scope, data_preparation, preparation_rows, rows);
    result.rows.insert(result.rows.end(), rows.begin(), rows.end());
  }
  return result;
}

}  // namespace aiprof::analysis
