#include "model/importers/kineto/flow_binding.h"

#include <algorithm>
#include <unordered_map>

namespace aiprof::model::kineto {

void BindFlows(Model& model, const std::vector<FlowEnd>& ends, std::vector<std::string>* notes) {
  if (ends.empty()) return;
  const SliceTable& s = model.slices;
  // Slices by thread, by start, the deepest last among equal starts: the last slice starting
  // at or before a flow's time is the innermost candidate that can enclose it.
  std::vector<uint32_t> threads_with_flows(model.threads.size(), 0);
  for (const FlowEnd& end : ends) threads_with_flows[end.thread] = 1;
  std::vector<std::vector<uint32_t>> by_thread(model.threads.size());
  for (uint32_t row = 0; row < s.size(); ++row) {
    const uint32_t thread = model.ThreadOfSlice(row);
    if (threads_with_flows[thread]) by_thread[thread].push_back(row);
  }
  for (std::vector<uint32_t>& rows : by_thread) {
    std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
      if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
      return s.depth[a] < s.depth[b];
    });
  }
  auto bind = [&](const FlowEnd& end) -> uint32_t {
    const std::vector<uint32_t>& rows = by_thread[end.thread];
    auto after = std::upper_bound(rows.begin(), rows.end(), end.ts,
                                  [&](int64_t ts, uint32_t row) { return ts < s.ts[row]; });
    if (end.phase == 'F') return after == rows.end() ? kNoRow : *after;
    if (after == rows.begin()) return kNoRow;
    for (uint32_t row = *(after - 1); row != kNoRow; row = s.parent[row]) {
      if (s.end[row] >= end.ts) return row;
    }
    return kNoRow;
  };
  // Starts by (category, id); each end links from the start of its id.
  struct Start {
    uint32_t slice;
    bool used;
  };
  std::unordered_map<uint64_t, Start> starts;
  auto flow_key = [](StringId category, uint64_t id) {
    return (uint64_t{category} * 0x9e3779b97f4a7c15ull) ^ id;
  };
  uint64_t unbound = 0, unpaired = 0;
  for (const FlowEnd& end : ends) {
    if (end.phase != 's') continue;
    const uint32_t slice = bind(end);
    if (slice == kNoRow) {
      ++unbound;
      continue;
    }
    starts[flow_key(end.category, end.key)] = {slice, false};
  }
  FlowTable& flows = model.flows;
  for (const FlowEnd& end : ends) {
    if (end.phase == 's') continue;
    const uint32_t slice = bind(end);
    if (slice == kNoRow) {
      ++unbound;
      continue;
    }
    auto start = starts.find(flow_key(end.category, end.key));
    if (start == starts.end()) {
      ++unpaired;
      continue;
    }
    start->second.used = true;
    flows.id.push_back(end.key);
    flows.from_slice.push_back(start->second.slice);
    flows.to_slice.push_back(slice);
    flows.category.push_back(end.category);
  }
  uint64_t lone_starts = 0;
  for (const auto& [key, start] : starts) lone_starts += start.used ? 0 : 1;
  if (unbound > 0) {
    notes->push_back(std::to_string(unbound) + " flow events lie on no slice of their thread");
  }
  if (unpaired + lone_starts > 0) {
    notes->push_back(std::to_string(unpaired + lone_starts) +
                     " flow events have no other end in the trace");
  }
}

}  // namespace aiprof::model::kineto
