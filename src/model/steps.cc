#include "model/steps.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "model/ascii_case.h"
#include "model/huge_pages.h"
#include "model/model.h"

namespace aiprof::model {

std::string_view StepSourceName(StepSource source) {
  switch (source) {
    case StepSource::kStepRecords:
      return "step records (prof.step / aiprofStepBegin)";
    case StepSource::kProfilerStepRanges:
      return "ProfilerStep#N ranges";
    case StepSource::kMarkerRanges:
      return "mstx/NVTX step ranges";
    case StepSource::kOptimizerSteps:
      return "Optimizer.step ranges";
    case StepSource::kNone:
      break;
  }
  return "none (whole collection)";
}

namespace {

bool ParseNumber(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

// A step as a source found it, before it is given a loop and a row.
struct Candidate {
  uint64_t step = 0;
  uint32_t thread = 0;
  uint32_t slice = kNoRow;
  int64_t ts = 0;
  int64_t end = 0;
};

constexpr size_t kSources = 4;  // StepSource values after kNone, in precedence order
using ProcessCandidates = std::array<std::vector<Candidate>, kSources>;

size_t SourceIndex(StepSource source) {
  return static_cast<size_t>(source) - 1;
}

// What a slice name means to the step finder, decided once per string.
enum class NameKind : uint8_t { kUnknown, kOther, kProfilerStep, kOptimizerStep, kDataLoader };

struct NameClasses {
  std::vector<NameKind> kind;
  std::vector<uint64_t> number;

  explicit NameClasses(const Model& model)
      : kind(model.strings.size(), NameKind::kUnknown), number(model.strings.size(), 0) {}

  NameKind Of(const Model& model, StringId id) {
    if (kind[id] != NameKind::kUnknown) return kind[id];
    const std::string_view name = model.Str(id);
    NameKind k = NameKind::kOther;
    if (ParseProfilerStepName(name, &number[id])) {
      k = NameKind::kProfilerStep;
    } else if (IsOptimizerStepName(name)) {
      k = NameKind::kOptimizerStep;
    } else if (name.starts_with("enumerate(DataLoader)")) {
      k = NameKind::kDataLoader;
    }
    kind[id] = k;
    return k;
  }
};

// Per thread: where its first top-level slice and its DataLoader fetches begin, the
// candidates for the start of step 0 of an Optimizer.step loop.
struct ThreadStarts {
  int64_t first_top_level = INT64_MAX;
  std::vector<int64_t> data_loader;  // begins of its "enumerate(DataLoader)..." ranges
};

// Source 4: step k of a thread ends where its k-th outermost Optimizer.step range ends.
void AddOptimizerSteps(const Model& model, std::vector<uint32_t> ranges,
                       const std::vector<ThreadStarts>& starts, std::vector<Candidate>* out) {
  const SliceTable& s = model.slices;
  std::sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
    const uint32_t ta = model.ThreadOfSlice(a), tb = model.ThreadOfSlice(b);
    return ta != tb ? ta < tb : s.ts[a] < s.ts[b];
  });
  uint32_t thread = kNoRow;
  uint64_t number = 0;
  int64_t previous_end = 0;
  for (uint32_t row : ranges) {
    const uint32_t t = model.ThreadOfSlice(row);
    if (t != thread) {
      thread = t;
      number = 0;
      const ThreadStarts& start = starts[t];
      previous_end = start.first_top_level;
      for (int64_t fetch : start.data_loader) {
        if (fetch < s.ts[row]) {
          previous_end = fetch;
          break;
        }
      }
    }
    out->push_back({number++, t, kNoRow, std::min(previous_end, s.ts[row]), s.end[row]});
    previous_end = s.end[row];
  }
}

// Scans the slices and markers once for sources 2-4; source 1 comes from the records.
std::vector<ProcessCandidates> FindCandidates(const Model& model) {
  std::vector<ProcessCandidates> per_process(model.processes.size());
  const SliceTable& s = model.slices;
  auto add = [&](StepSource source, const Candidate& c) {
    per_process[model.ProcessOfThread(c.thread)][SourceIndex(source)].push_back(c);
  };
  std::vector<uint8_t> recorded(s.size(), 0);
  for (size_t i = 0; i < model.recorded_steps.size(); ++i) {
    const uint32_t row = model.recorded_steps.slice[i];
    recorded[row] = 1;
    add(StepSource::kStepRecords,
        {model.recorded_steps.step[i], model.ThreadOfSlice(row), row, s.ts[row], s.end[row]});
  }
  NameClasses names(model);
  std::vector<ThreadStarts> starts(model.threads.size());
  std::vector<uint32_t> optimizer_ranges;
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint32_t thread = model.ThreadOfSlice(row);
    if (s.parent[row] == kNoRow) {
      starts[thread].first_top_level = std::min(starts[thread].first_top_level, s.ts[row]);
    }
    switch (names.Of(model, s.name[row])) {
      case NameKind::kProfilerStep:
        // Kineto repeats each ProfilerStep range on the GPU streams it launched work on
        // (gpu_user_annotation): the step is the host's range.
        if (!recorded[row] && model.processes.device_id[model.ProcessOfThread(thread)] < 0) {
          add(StepSource::kProfilerStepRanges,
              {names.number[s.name[row]], thread, row, s.ts[row], s.end[row]});
        }
        break;
      case NameKind::kOptimizerStep:
        if (s.parent[row] == kNoRow ||
            names.Of(model, s.name[s.parent[row]]) != NameKind::kOptimizerStep) {
          optimizer_ranges.push_back(row);
        }
        break;
      case NameKind::kDataLoader:
        starts[thread].data_loader.push_back(s.ts[row]);
        break;
      default:
        break;
    }
  }
  for (ThreadStarts& start : starts) std::sort(start.data_loader.begin(), start.data_loader.end());
  // A name's step number is parsed once (markers repeat a few names millions of times):
  // is_step -1 until then, 0 when it names none.
  std::vector<int8_t> is_step(model.strings.size(), -1);
  std::vector<uint64_t> step_of_name(model.strings.size(), 0);
  for (size_t i = 0; i < model.markers.size(); ++i) {
    if (model.markers.is_instant[i]) continue;
    const uint32_t row = model.markers.row[i];
    const StringId name = s.name[row];
    if (is_step[name] < 0) {
      is_step[name] = ParseMarkerStepName(model.Str(name), &step_of_name[name]);
    }
    if (is_step[name] != 0) {
      const uint64_t step = step_of_name[name];
      add(StepSource::kMarkerRanges, {step, model.ThreadOfSlice(row), row, s.ts[row], s.end[row]});
    }
  }
  std::vector<Candidate> optimizer;
  AddOptimizerSteps(model, std::move(optimizer_ranges), starts, &optimizer);
  for (const Candidate& c : optimizer) add(StepSource::kOptimizerSteps, c);
  return per_process;
}

// One process's steps of `source`, split into loops (per thread, a new loop wherever the
// number does not increase), appended to the model's tables in loop order.
void AddLoops(Model& model, uint32_t process, StepSource source, std::vector<Candidate> steps) {
  std::sort(steps.begin(), steps.end(), [](const Candidate& a, const Candidate& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.ts < b.ts;
  });
  std::vector<std::pair<size_t, size_t>> loops;  // [begin, end) in `steps`
  for (size_t i = 0; i < steps.size(); ++i) {
    const bool continues =
        i > 0 && steps[i].thread == steps[i - 1].thread && steps[i].step > steps[i - 1].step;
    if (!continues) loops.push_back({i, i});
    loops.back().second = i + 1;
  }
  std::stable_sort(loops.begin(), loops.end(), [&](const auto& a, const auto& b) {
    return steps[a.first].ts < steps[b.first].ts;
  });
  StepTable& table = model.steps;
  StepLoopTable& l = model.step_loops;
  for (size_t ordinal = 0; ordinal < loops.size(); ++ordinal) {
    const auto [begin, end] = loops[ordinal];
    const uint32_t loop = static_cast<uint32_t>(l.size());
    l.process.push_back(process);
    l.thread.push_back(steps[begin].thread);
    l.ordinal.push_back(static_cast<uint32_t>(ordinal));
    l.source.push_back(source);
    l.first.push_back(static_cast<uint32_t>(table.size()));
    l.count.push_back(static_cast<uint32_t>(end - begin));
    for (size_t i = begin; i < end; ++i) {
      table.step.push_back(steps[i].step);
      table.loop.push_back(loop);
      table.thread.push_back(steps[i].thread);
      table.slice.push_back(steps[i].slice);
      table.ts.push_back(steps[i].ts);
      table.end.push_back(steps[i].end);
    }
  }
}

}  // namespace

bool ParseProfilerStepName(std::string_view name, uint64_t* step) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  return name.starts_with(kPrefix) && ParseNumber(name.substr(kPrefix.size()), step);
}

bool ParseMarkerStepName(std::string_view name, uint64_t* step) {
  for (std::string_view word : {std::string_view("step"), std::string_view("iteration")}) {
    if (!StartsWithNoCase(name, word)) continue;
    std::string_view rest = name.substr(word.size());
    size_t separators = 0;
    while (separators < rest.size() &&
           std::string_view(" #_:-").find(rest[separators]) != std::string_view::npos) {
      ++separators;
    }
    return ParseNumber(rest.substr(separators), step);
  }
  return false;
}

bool IsOptimizerStepName(std::string_view name) {
  constexpr std::string_view kName = "Optimizer.step";
  return name == kName || (name.starts_with(kName) && name[kName.size()] == '#');
}

void ResolveSteps(Model& model) {
  model.steps = {};
  model.step_loops = {};
  std::vector<ProcessCandidates> candidates = FindCandidates(model);
  for (uint32_t process = 0; process < candidates.size(); ++process) {
    for (size_t source = 0; source < kSources; ++source) {
      if (candidates[process][source].empty()) continue;
      AddLoops(model, process, static_cast<StepSource>(source + 1),
               std::move(candidates[process][source]));
      break;
    }
  }
}

std::vector<uint8_t> StepRangeMask(const Model& model) {
  std::vector<uint8_t> mask;
  AssignOnHugePages(mask, model.slices.size(), uint8_t{0});
  for (uint32_t slice : model.steps.slice) {
    if (slice != kNoRow) mask[slice] = 1;
  }
  return mask;
}

StepSource RunStepSource(const Model& model) {
  const StepLoopTable& loops = model.step_loops;
  if (loops.size() == 0) return StepSource::kNone;
  StepSource best = loops.source[0];
  for (StepSource source : loops.source) best = std::min(best, source);
  return best;
}

bool HasSeveralLoops(const Model& model) {
  const StepLoopTable& loops = model.step_loops;
  for (uint32_t ordinal : loops.ordinal) {
    if (ordinal > 0) return true;
  }
  return false;
}

std::string FormatStepLabel(bool several_loops, uint32_t loop_ordinal, uint64_t step) {
  const std::string number = std::to_string(step);
  return several_loops ? std::to_string(loop_ordinal) + ":" + number : number;
}

std::string StepLabel(const Model& model, uint32_t step_row) {
  return FormatStepLabel(HasSeveralLoops(model),
                         model.step_loops.ordinal[model.steps.loop[step_row]],
                         model.steps.step[step_row]);
}

bool ParseStepRange(const std::string& text, StepRange* range, std::string* error) {
  auto parse = [](std::string_view part, uint64_t* value) { return ParseNumber(part, value); };
  std::string_view all(text);
  *range = {};
  bool ok = true;
  if (size_t colon = all.find(':'); colon != std::string_view::npos) {
    uint64_t loop = 0;
    ok = parse(all.substr(0, colon), &loop) && loop <= UINT32_MAX;
    range->has_loop = true;
    range->loop = static_cast<uint32_t>(loop);
    all = all.substr(colon + 1);
  }
  size_t dash = all.find('-');
  ok = ok && (dash == std::string_view::npos ? parse(all, &range->first)
                                             : parse(all.substr(0, dash), &range->first) &&
                                                   parse(all.substr(dash + 1), &range->last));
  if (dash == std::string_view::npos) range->last = range->first;
  if (!ok || range->first > range->last) {
    *error = "invalid --iteration-id '" + text +
             "': expected a step number N, a range N-M, or either after a loop number "
             "(L:N, L:N-M) when the run has several training loops";
    return false;
  }
  return true;
}

namespace {

std::string DescribeLoop(const Model& model, uint32_t loop) {
  const StepLoopTable& l = model.step_loops;
  const StepTable& s = model.steps;
  const uint32_t first = l.first[loop], last = first + l.count[loop] - 1;
  return "loop " + std::to_string(l.ordinal[loop]) + " (steps " + std::to_string(s.step[first]) +
         "-" + std::to_string(s.step[last]) + ", " + std::string(StepSourceName(l.source[loop])) +
         ", tid " + std::to_string(model.threads.tid[l.thread[loop]]) + ")";
}

std::string DescribeRange(const StepRange& range) {
  std::string text = (range.has_loop ? std::to_string(range.loop) + ":" : std::string()) +
                     std::to_string(range.first);
  if (range.last != range.first) text += "-" + std::to_string(range.last);
  return text;
}

}  // namespace

bool SelectSteps(const Model& model, const StepRange& range, std::vector<uint32_t>* rows,
                 std::string* error) {
  const StepTable& s = model.steps;
  const StepLoopTable& l = model.step_loops;
  rows->clear();
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (s.step[row] < range.first || s.step[row] > range.last) continue;
    if (range.has_loop && l.ordinal[s.loop[row]] != range.loop) continue;
    rows->push_back(row);
  }
  if (rows->empty()) {
    std::string available;
    for (uint32_t loop = 0; loop < l.size() && loop < 8; ++loop) {
      available += (loop ? "; " : "") + DescribeLoop(model, loop);
    }
    *error = "no step " + DescribeRange(range) + " in the data" +
             (available.empty() ? " (it has no steps; docs/analysis.md says how steps are found)"
                                : " (" + available + ")");
    return false;
  }
  if (range.has_loop) return true;
  std::vector<uint32_t> loop_of_process(model.processes.size(), kNoRow);
  for (uint32_t row : *rows) {
    const uint32_t loop = s.loop[row];
    uint32_t& first_loop = loop_of_process[l.process[loop]];
    if (first_loop == kNoRow) first_loop = loop;
    if (loop == first_loop) continue;
    *error = "step " + DescribeRange(range) + " is in several training loops of pid " +
             std::to_string(model.processes.pid[l.process[loop]]) + ": " +
             DescribeLoop(model, first_loop) + " and " + DescribeLoop(model, loop) +
             "; name the loop, e.g. --iteration-id=" + std::to_string(l.ordinal[loop]) + ":" +
             DescribeRange(range);
    rows->clear();
    return false;
  }
  return true;
}

}  // namespace aiprof::model
