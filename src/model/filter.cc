#include "model/filter.h"

#include <algorithm>
#include <charconv>

namespace aiprof::model {
namespace {

template <typename T>
void Keep(std::vector<T>& to, const std::vector<T>& from, const std::vector<uint32_t>& rows) {
  to.reserve(rows.size());
  for (uint32_t row : rows) to.push_back(from[row]);
}

}  // namespace

bool ParseStepRange(const std::string& text, StepRange* range, std::string* error) {
  auto parse = [](std::string_view part, uint64_t* value) {
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *value);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  size_t dash = text.find('-');
  std::string_view all(text);
  bool ok = dash == std::string::npos ? parse(all, &range->first)
                                      : parse(all.substr(0, dash), &range->first) &&
                                            parse(all.substr(dash + 1), &range->last);
  if (dash == std::string::npos) range->last = range->first;
  if (!ok || range->first > range->last) {
    *error = "invalid --iteration-id '" + text + "': expected a step number N or a range N-M";
    return false;
  }
  return true;
}

bool FilterToSteps(const Model& in, const StepRange& range, Model* out, std::string* error) {
  int64_t begin = INT64_MAX, end = INT64_MIN;
  std::vector<uint32_t> steps;
  for (uint32_t i = 0; i < in.steps.size(); ++i) {
    if (in.steps.step[i] < range.first || in.steps.step[i] > range.last) continue;
    steps.push_back(i);
    begin = std::min(begin, in.steps.ts[i]);
    end = std::max(end, in.steps.end[i]);
  }
  if (steps.empty()) {
    std::string available;
    for (size_t i = 0; i < in.steps.size() && i < 10; ++i) {
      available += (i ? ", " : "") + std::to_string(in.steps.step[i]);
    }
    *error = "no step " + std::to_string(range.first) +
             (range.last != range.first ? "-" + std::to_string(range.last) : "") + " in the data" +
             (available.empty() ? " (it has no steps)" : " (steps: " + available + ")");
    return false;
  }
  Model& m = *out;
  for (StringId id = 1; id < in.strings.size(); ++id) m.strings.Intern(in.strings.Get(id));
  m.processes = in.processes;
  m.threads = in.threads;
  m.tracks = in.tracks;
  m.args = in.args;
  m.counter_series = in.counter_series;
  m.drops = in.drops;
  m.devices = in.devices;
  m.hosts = in.hosts;
  m.files = in.files;
  m.raw_bytes = in.raw_bytes;
  m.records = in.records;
  m.unknown_records = in.unknown_records;
  m.unmatched_ends = in.unmatched_ends;
  m.start_ns = begin;
  m.end_ns = end;
  auto inside = [&](int64_t ts) { return ts >= begin && ts < end; };

  std::vector<uint32_t> slice_map(in.slices.size(), kNoRow), rows;
  for (uint32_t row = 0; row < in.slices.size(); ++row) {
    if (!inside(in.slices.ts[row])) continue;
    slice_map[row] = static_cast<uint32_t>(rows.size());
    rows.push_back(row);
  }
  const SliceTable& s = in.slices;
  Keep(m.slices.ts, s.ts, rows);
  Keep(m.slices.end, s.end, rows);
  Keep(m.slices.track, s.track, rows);
  Keep(m.slices.name, s.name, rows);
  Keep(m.slices.category, s.category, rows);
  Keep(m.slices.args, s.args, rows);
  Keep(m.slices.depth, s.depth, rows);
  Keep(m.slices.flags, s.flags, rows);
  for (uint32_t row : rows) {
    m.slices.parent.push_back(s.parent[row] == kNoRow ? kNoRow : slice_map[s.parent[row]]);
  }

  std::vector<uint32_t> instant_map(in.instants.size(), kNoRow);
  rows.clear();
  for (uint32_t row = 0; row < in.instants.size(); ++row) {
    if (!inside(in.instants.ts[row])) continue;
    instant_map[row] = static_cast<uint32_t>(rows.size());
    rows.push_back(row);
  }
  Keep(m.instants.ts, in.instants.ts, rows);
  Keep(m.instants.track, in.instants.track, rows);
  Keep(m.instants.name, in.instants.name, rows);
  Keep(m.instants.category, in.instants.category, rows);
  Keep(m.instants.args, in.instants.args, rows);

  rows.clear();
  for (uint32_t row = 0; row < in.counters.size(); ++row) {
    if (inside(in.counters.ts[row])) rows.push_back(row);
  }
  Keep(m.counters.series, in.counters.series, rows);
  Keep(m.counters.ts, in.counters.ts, rows);
  Keep(m.counters.value, in.counters.value, rows);

  const MarkerTable& mk = in.markers;
  for (size_t i = 0; i < mk.size(); ++i) {
    uint32_t row = mk.is_instant[i] ? instant_map[mk.row[i]] : slice_map[mk.row[i]];
    if (row == kNoRow) continue;
    m.markers.is_instant.push_back(mk.is_instant[i]);
    m.markers.row.push_back(row);
    m.markers.event_type.push_back(mk.event_type[i]);
    m.markers.domain.push_back(mk.domain[i]);
    if (mk.detail[i] == kNoRow) {
      m.markers.detail.push_back(kNoRow);
    } else {
      MarkerDetailTable& d = m.markers.details;
      m.markers.detail.push_back(static_cast<uint32_t>(d.size()));
      d.category.push_back(mk.category(i));
      d.payload_type.push_back(mk.payload_type(i));
      d.payload.push_back(mk.payload(i));
      d.color_argb.push_back(mk.color_argb(i));
      d.end_thread.push_back(mk.end_thread(i));
      d.range_id.push_back(mk.range_id(i));
      const uint32_t device = mk.device_slice(i);
      d.device_slice.push_back(device == kNoRow ? kNoRow : slice_map[device]);
    }
  }
  for (size_t i = 0; i < in.flows.size(); ++i) {
    uint32_t from = slice_map[in.flows.from_slice[i]], to = slice_map[in.flows.to_slice[i]];
    if (from == kNoRow || to == kNoRow) continue;
    m.flows.id.push_back(in.flows.id[i]);
    m.flows.from_slice.push_back(from);
    m.flows.to_slice.push_back(to);
    m.flows.category.push_back(in.flows.category[i]);
  }
  for (uint32_t i : steps) {
    if (slice_map[in.steps.slice[i]] == kNoRow) continue;
    m.steps.step.push_back(in.steps.step[i]);
    m.steps.ts.push_back(in.steps.ts[i]);
    m.steps.end.push_back(in.steps.end[i]);
    m.steps.thread.push_back(in.steps.thread[i]);
    m.steps.slice.push_back(slice_map[in.steps.slice[i]]);
  }
  return true;
}

}  // namespace aiprof::model
