#include "model/filter.h"

#include <algorithm>

namespace aiprof::model {
namespace {

template <typename T>
void Keep(std::vector<T>& to, const std::vector<T>& from, const std::vector<uint32_t>& rows) {
  to.reserve(rows.size());
  for (uint32_t row : rows) to.push_back(from[row]);
}

// The selected steps, their loops (ordinals kept: loop k stays loop k) and step records.
void KeepSteps(const Model& in, const std::vector<uint32_t>& steps,
               const std::vector<uint32_t>& slice_map, Model* out) {
  auto map_slice = [&](uint32_t row) { return row == kNoRow ? kNoRow : slice_map[row]; };
  std::vector<uint32_t> loop_map(in.step_loops.size(), kNoRow);
  StepTable& s = out->steps;
  StepLoopTable& l = out->step_loops;
  for (uint32_t row : steps) {
    const uint32_t loop = in.steps.loop[row];
    if (loop_map[loop] == kNoRow) {
      loop_map[loop] = static_cast<uint32_t>(l.size());
      l.process.push_back(in.step_loops.process[loop]);
      l.thread.push_back(in.step_loops.thread[loop]);
      l.ordinal.push_back(in.step_loops.ordinal[loop]);
      l.source.push_back(in.step_loops.source[loop]);
      l.first.push_back(static_cast<uint32_t>(s.size()));
      l.count.push_back(0);
    }
    ++l.count[loop_map[loop]];
    s.step.push_back(in.steps.step[row]);
    s.loop.push_back(loop_map[loop]);
    s.thread.push_back(in.steps.thread[row]);
    s.slice.push_back(map_slice(in.steps.slice[row]));
    s.ts.push_back(in.steps.ts[row]);
    s.end.push_back(in.steps.end[row]);
  }
  for (size_t i = 0; i < in.recorded_steps.size(); ++i) {
    const uint32_t slice = map_slice(in.recorded_steps.slice[i]);
    if (slice == kNoRow) continue;
    out->recorded_steps.slice.push_back(slice);
    out->recorded_steps.step.push_back(in.recorded_steps.step[i]);
  }
}

}  // namespace

bool FilterToSteps(const Model& in, const StepRange& range, Model* out, std::string* error) {
  std::vector<uint32_t> steps;
  if (!SelectSteps(in, range, &steps, error)) return false;
  int64_t begin = INT64_MAX, end = INT64_MIN;
  for (uint32_t row : steps) {
    begin = std::min(begin, in.steps.ts[row]);
    end = std::max(end, in.steps.end[row]);
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
  KeepSteps(in, steps, slice_map, &m);
  return true;
}

}  // namespace aiprof::model
