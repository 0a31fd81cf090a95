// Per-name statistics of operators and kernels, and their pairing across two runs.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analysis/compare/run_comparison.h"
#include "analysis/op_statistics.h"
#include "format/torch_inputs.h"

namespace aiprof::analysis {
namespace {

using model::kNoRow;
using model::kNoString;
using model::StringId;

// The window of the selected steps, device work finishing after its step included.
struct Window {
  int64_t begin = INT64_MIN;
  int64_t end = INT64_MAX;
  bool Contains(int64_t t) const { return t >= begin && t < end; }
};

Window StepWindow(const AnalysisSet& set) {
  Window window;
  if (!set.options.iterations || set.steps.steps.empty()) return window;
  window.begin = INT64_MAX;
  window.end = INT64_MIN;
  for (const StepSpan& step : set.steps.steps) {
    window.begin = std::min(window.begin, step.begin_ns);
    window.end = std::max(window.end, step.end_ns);
  }
  for (const StepBreakdownRow& row : set.step_breakdown.rows) {
    window.end = std::max(window.end, row.end_ns);
  }
  return window;
}

struct CallKey {
  StringId category, name, dims;
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  size_t operator()(const CallKey& k) const {
    uint64_t h = (static_cast<uint64_t>(k.category) * 0x9E3779B97F4A7C15ull) ^ k.name;
    return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull ^ k.dims);
  }
};

}  // namespace

void CallStatistics::Add(int64_t duration_ns, int64_t self_duration_ns) {
  if (calls == 0 || duration_ns < min_ns) min_ns = duration_ns;
  if (calls == 0 || duration_ns > max_ns) max_ns = duration_ns;
  ++calls;
  total_ns += duration_ns;
  self_ns += self_duration_ns;
}

std::string_view ChangeName(Change change) {
  switch (change) {
    case Change::kAdded:
      return "added";
    case Change::kRemoved:
      return "removed";
    case Change::kSlower:
      return "slower";
    case Change::kFaster:
      return "faster";
    case Change::kUnchanged:
      break;
  }
  return "unchanged";
}

Change NameDelta::change() const {
  if (base.calls == 0) return Change::kAdded;
  if (comparison.calls == 0) return Change::kRemoved;
  if (comparison.total_ns > base.total_ns) return Change::kSlower;
  if (comparison.total_ns < base.total_ns) return Change::kFaster;
  return Change::kUnchanged;
}

double NameDelta::total_ratio() const {
  return DiffRatio(static_cast<double>(comparison.total_ns), static_cast<double>(base.total_ns));
}

double NameDelta::mean_ratio() const {
  return DiffRatio(comparison.mean_ns(), base.mean_ns());
}

std::vector<NameCalls> CollectCalls(const model::Model& m, const AnalysisSet& set, CallKind kind,
                                    CompareGroupBy group_by) {
  const model::SliceTable& s = m.slices;
  const bool operators = kind == CallKind::kOperators;
  const StringId cpu_op = m.strings.Find("cpu_op");
  const StringId annotation = m.strings.Find("user_annotation");
  const StringId dims_key =
      group_by == CompareGroupBy::kNameAndShape ? m.strings.Find("Input Dims") : kNoString;
  const Window window = StepWindow(set);

  // Whether a category is counted, decided once per category.
  std::unordered_map<StringId, bool> counted_category;
  auto counted = [&](StringId category) {
    auto [it, inserted] = counted_category.try_emplace(category, false);
    if (inserted) {
      it->second = operators
                       ? (category != kNoString && (category == cpu_op || category == annotation))
                       : IsDeviceTaskCategory(m.Str(category));
    }
    return it->second;
  };
  std::vector<uint8_t> host_thread(m.threads.size());
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    host_thread[t] = m.processes.device_id[m.ProcessOfThread(t)] < 0;
  }
  // Names that are step ranges, decided once per name.
  // Step ranges are the steps (the model's, selected or not), not operators.
  std::unordered_set<uint32_t> step_slices(m.steps.slice.begin(), m.steps.slice.end());

  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (!counted(s.category[row]) || !window.Contains(s.ts[row])) continue;
    if (operators && (!host_thread[m.ThreadOfSlice(row)] || step_slices.contains(row))) continue;
    rows.push_back(row);
  }
  // Operators' self time is torch's (TaskSelfTimes); a kernel's is its duration.
  const std::vector<int64_t> self = TaskSelfTimes(m, rows);

  std::unordered_map<CallKey, uint32_t, CallKeyHash> index;
  std::vector<CallKey> keys;
  std::vector<CallStatistics> stats;
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t row = rows[i];
    const CallKey key{s.category[row], s.name[row],
                      m.args.Text(s.args[row], dims_key).value_or(kNoString)};
    auto [it, inserted] = index.try_emplace(key, static_cast<uint32_t>(keys.size()));
    if (inserted) {
      keys.push_back(key);
      stats.emplace_back();
    }
    stats[it->second].Add(s.dur(row), self[i]);
  }
  std::vector<NameCalls> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    out[i].type = m.Str(keys[i].category);
    out[i].name = m.Str(keys[i].name);
    if (keys[i].dims != kNoString)
      out[i].input_shape = format::InputShapesFromDims(m.Str(keys[i].dims));
    out[i].calls = stats[i];
  }
  return out;
}

std::vector<NameDelta> MatchCalls(std::vector<NameCalls> base, std::vector<NameCalls> comparison) {
  auto key_of = [](const NameCalls& c) {
    std::string key = c.type;
    key += '\x1f';
    key += c.name;
    key += '\x1f';
    key += c.input_shape;
    return key;
  };
  std::unordered_map<std::string, size_t> index;
  std::vector<NameDelta> out;
  out.reserve(base.size() + comparison.size());
  for (NameCalls& c : base) {
    index.emplace(key_of(c), out.size());
    out.push_back({std::move(c.name), std::move(c.type), std::move(c.input_shape), c.calls, {}});
  }
  for (NameCalls& c : comparison) {
    auto [it, inserted] = index.try_emplace(key_of(c), out.size());
    if (inserted) {
      out.push_back({std::move(c.name), std::move(c.type), std::move(c.input_shape), {}, c.calls});
    } else {
      out[it->second].comparison = c.calls;
    }
  }
  // Largest regression first; equal changes: the name with more time first, then by name.
  std::sort(out.begin(), out.end(), [](const NameDelta& a, const NameDelta& b) {
    if (a.diff_total_ns() != b.diff_total_ns()) return a.diff_total_ns() > b.diff_total_ns();
    const int64_t a_size = std::max(a.base.total_ns, a.comparison.total_ns);
    const int64_t b_size = std::max(b.base.total_ns, b.comparison.total_ns);
    if (a_size != b_size) return a_size > b_size;
    if (a.name != b.name) return a.name < b.name;
    if (a.type != b.type) return a.type < b.type;
    return a.input_shape < b.input_shape;
  });
  return out;
}

}  // namespace aiprof::analysis
