#include "analysis/memory_transfers.h"

#include <algorithm>
#include <bit>
#include <map>
#include <string_view>
#include <unordered_map>

#include "analysis/intervals.h"

namespace aiprof::analysis {
namespace {

// HTA's memory subtype: "Memset", else the first 11 characters ("Memcpy HtoD").
std::string TransferKind(std::string_view name, std::string_view category) {
  if (category == "gpu_memset" || name.starts_with("Memset")) return "Memset";
  if (name.starts_with("Memcpy ") && name.size() >= 11) return std::string(name.substr(0, 11));
  return "Memcpy Unknown";
}

}  // namespace

std::vector<MemoryTransferRow> ComputeMemoryTransfers(const model::Model& model,
                                                      const std::vector<StepSpan>& steps) {
  const model::SliceTable& s = model.slices;
  std::vector<uint8_t> is_transfer(model.strings.size(), 0);
  for (model::StringId id = 0; id < model.strings.size(); ++id) {
    std::string_view text = model.strings.Get(id);
    is_transfer[id] = text == "gpu_memcpy" || text == "gpu_memset";
  }
  const model::StringId bytes_key = model.strings.Find("bytes");
  std::vector<Interval> step_spans;
  std::vector<const StepSpan*> step_of_span;
  std::vector<const StepSpan*> order;
  for (const StepSpan& step : steps) order.push_back(&step);
  std::sort(order.begin(), order.end(),
            [](const StepSpan* a, const StepSpan* b) { return a->begin_ns < b->begin_ns; });
  for (const StepSpan* step : order) {
    step_spans.push_back({step->begin_ns, step->end_ns});
    step_of_span.push_back(step);
  }
  std::map<std::string, MemoryTransferRow> whole;
  std::map<std::pair<uint32_t, std::string>, MemoryTransferRow> per_step;  // by step id
  std::unordered_map<model::StringId, std::string> kind_of;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (!is_transfer[s.category[row]]) continue;
    const auto [kind, inserted] = kind_of.try_emplace(s.name[row]);
    if (inserted) kind->second = TransferKind(model.Str(s.name[row]), model.Str(s.category[row]));
    const std::string& kind_name = kind->second;  // lambdas may not capture a binding (C++17)
    const int64_t bytes = model.args.Int(s.args[row], bytes_key).value_or(0);
    auto add = [&](MemoryTransferRow& t) {
      t.kind = kind_name;
      ++t.count;
      t.bytes += bytes;
      t.time_ns += s.dur(row);
    };
    MemoryTransferRow& total = whole[kind->second];
    total.whole_run = true;
    add(total);
    // The last step starting at or before the transfer, if the transfer starts inside it.
    auto step = std::upper_bound(step_spans.begin(), step_spans.end(), s.ts[row],
                                 [](int64_t t, const Interval& span) { return t < span.begin; });
    if (step == step_spans.begin() || s.ts[row] >= (step - 1)->end) continue;
    const StepSpan& span = *step_of_span[static_cast<size_t>(step - step_spans.begin()) - 1];
    MemoryTransferRow& in_step = per_step[{span.id, kind->second}];
    in_step.step_id = span.id;
    in_step.step = span.step;
    in_step.loop = span.loop;
    add(in_step);
  }
  std::vector<MemoryTransferRow> rows;
  for (auto& [kind, row] : whole) rows.push_back(std::move(row));
  for (auto& [key, row] : per_step) rows.push_back(std::move(row));
  return rows;
}

}  // namespace aiprof::analysis
