#include "server/timeline_index.h"

#include <algorithm>

namespace aiprof::server {
namespace {

constexpr size_t kSmallestLevel = 64;  // no coarser level below this many spans

// Neighbours are merged when the gap between them and both of their widths are below
// `gap_ns`: at a zoom where that is under a pixel they could not be told apart, while a
// span wider than that stays on its own (with its name) however close its neighbours are.
int64_t MergeKey(const SliceSpan& previous, const SliceSpan& next) {
  return std::max(
      {next.ts - previous.end, previous.end - previous.ts, next.end - next.ts, int64_t{0}});
}

// The spans `span_at(0 .. count)` with neighbours closer than `gap_ns` merged.
template <typename SpanAt>
std::vector<SliceSpan> Merge(size_t count, SpanAt span_at, int64_t gap_ns,
                             const model::SliceTable& slices) {
  std::vector<SliceSpan> merged;
  for (size_t i = 0; i < count; ++i) {
    const SliceSpan span = span_at(i);
    if (!merged.empty() && MergeKey(span_at(i - 1), span) < gap_ns) {
      SliceSpan& last = merged.back();
      last.end = std::max(last.end, span.end);
      last.count += span.count;
      if (slices.dur(span.slice) > slices.dur(last.slice)) last.slice = span.slice;
    } else {
      merged.push_back(span);
    }
  }
  return merged;
}

// The first position of `ids` (slices by start time) whose slice does not start `before(ts)`.
template <typename Before>
size_t FirstNotStarting(const CompactIds& ids, const model::SliceTable& s, Before before) {
  size_t lo = 0, hi = ids.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (before(s.ts[ids[mid]])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

TimelineIndex::TimelineIndex(const model::Model& model) : model_(model) {
  const model::SliceTable& s = model.slices;
  const size_t tracks = model.tracks.size();
  rows_of_track_.assign(tracks, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    uint16_t& rows = rows_of_track_[s.track[i]];
    rows = std::max<uint16_t>(rows, static_cast<uint16_t>(s.depth[i] + 1));
  }
  first_row_.resize(tracks + 1);
  uint32_t next = 0;
  for (size_t t = 0; t < tracks; ++t) {
    first_row_[t] = next;
    next += rows_of_track_[t];
  }
  first_row_[tracks] = next;
  rows_.resize(next);
  // Level 0 is appended in table order, which is by start time within a row but where the
  // importers left a row's slices out of order: such a row is sorted once it is whole.
  std::vector<int64_t> last_ts(next, INT64_MIN);
  std::vector<bool> unsorted(next, false);
  for (uint32_t i = 0; i < s.size(); ++i) {
    const uint32_t r = first_row_[s.track[i]] + s.depth[i];
    if (s.ts[i] < last_ts[r]) unsorted[r] = true;
    last_ts[r] = s.ts[i];
    rows_[r].slices.push_back(i);
  }
  std::vector<int64_t>().swap(last_ts);
  for (uint32_t r = 0; r < next; ++r) {
    Row& row = rows_[r];
    if (unsorted[r]) {
      std::vector<uint32_t> ids = row.slices.Release();
      std::sort(ids.begin(), ids.end(), [&s](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
      for (uint32_t id : ids) row.slices.push_back(id);
    }
    row.slices.Finish();
    BuildLevels(row);
  }

  const model::CounterTable& c = model.counters;
  counters_.resize(model.counter_series.size());
  for (auto& levels : counters_) levels.emplace_back();
  for (size_t i = 0; i < c.size(); ++i) {
    counters_[c.series[i]][0].points.push_back({c.ts[i], c.value[i], c.value[i]});
  }
  for (auto& levels : counters_) {
    std::stable_sort(levels[0].points.begin(), levels[0].points.end(),
                     [](const CounterPoint& a, const CounterPoint& b) { return a.ts < b.ts; });
    while (levels.back().points.size() > kSmallestLevel) {
      const std::vector<CounterPoint>& finer = levels.back().points;
      CounterLevel coarser;
      coarser.points.reserve(finer.size() / 2 + 1);
      for (size_t i = 0; i < finer.size(); i += 2) {
        CounterPoint p = finer[i];
        if (i + 1 < finer.size()) {
          p.min = std::min(p.min, finer[i + 1].min);
          p.max = std::max(p.max, finer[i + 1].max);
        }
        coarser.points.push_back(p);
      }
      levels.push_back(std::move(coarser));
    }
  }

  flows_by_ts_.resize(model.flows.size());
  for (uint32_t i = 0; i < flows_by_ts_.size(); ++i) flows_by_ts_[i] = i;
  std::sort(flows_by_ts_.begin(), flows_by_ts_.end(), [&](uint32_t a, uint32_t b) {
    return s.ts[model.flows.from_slice[a]] < s.ts[model.flows.from_slice[b]];
  });

  instants_.resize(tracks);
  for (uint32_t i = 0; i < model.instants.size(); ++i) {
    instants_[model.instants.track[i]].push_back(i);
  }
  for (auto& list : instants_) {
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return model.instants.ts[a] < model.instants.ts[b];
    });
  }
}

void TimelineIndex::BuildLevels(Row& row) const {
  const model::SliceTable& s = model_.slices;
  // Each level is merged from the one below as it is stored (level 0: the row's slices read
  // from the model), never from a copy of it: the build's scratch is the gaps and the level
  // being made.
  const std::vector<SliceSpan>* finer = nullptr;
  auto span_at = [&](size_t i) {
    if (finer != nullptr) return (*finer)[i];
    const uint32_t slice = row.slices[i];
    return SliceSpan{s.ts[slice], s.end[slice], 1, slice};
  };
  size_t count = row.slices.size();
  std::vector<int64_t> gaps;
  while (count > kSmallestLevel) {
    // The gap that leaves about a quarter of the spans: the (n/4)-th largest merge key.
    gaps.clear();
    gaps.reserve(count - 1);
    for (size_t i = 1; i < count; ++i) gaps.push_back(MergeKey(span_at(i - 1), span_at(i)));
    const size_t keep = count / 4;
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(keep), gaps.end(),
                     std::greater<>());
    int64_t gap = std::max<int64_t>(gaps[keep] + 1, 1);
    std::vector<SliceSpan> coarser = Merge(count, span_at, gap, s);
    while (coarser.size() > keep + 1) {  // ties at that gap: widen until a quarter is left
      gap *= 2;
      coarser = Merge(count, span_at, gap, s);
    }
    coarser.shrink_to_fit();
    row.levels.push_back({gap, std::move(coarser)});
    finer = &row.levels.back().spans;
    count = finer->size();
  }
}

void TimelineIndex::QuerySlices(
    uint32_t track, int64_t t0, int64_t t1, int64_t ns_per_px,
    const std::function<void(uint16_t depth, const SliceSpan&)>& visit) const {
  const model::SliceTable& s = model_.slices;
  for (uint16_t depth = 0; depth < rows_of_track_[track]; ++depth) {
    const Row& row = rows_[first_row_[track] + depth];
    const Level* level = nullptr;
    for (const Level& candidate : row.levels) {
      if (candidate.gap_ns <= ns_per_px) level = &candidate;
    }
    SliceSpan pending;
    SliceSpan previous;  // the last span merged into `pending`
    bool has_pending = false;
    auto emit = [&](const SliceSpan& span) {
      if (span.end <= t0) return;
      const bool merge = has_pending && MergeKey(previous, span) < ns_per_px;
      previous = span;
      if (merge) {
        pending.end = std::max(pending.end, span.end);
        pending.count += span.count;
        if (s.dur(span.slice) > s.dur(pending.slice)) pending.slice = span.slice;
        return;
      }
      if (has_pending) visit(depth, pending);
      pending = span;
      has_pending = true;
    };
    if (level != nullptr) {
      const auto& spans = level->spans;
      auto it = std::upper_bound(spans.begin(), spans.end(), t0,
                                 [](int64_t t, const SliceSpan& sp) { return t < sp.ts; });
      if (it != spans.begin()) --it;
      for (; it != spans.end() && it->ts < t1; ++it) emit(*it);
    } else {
      const CompactIds& ids = row.slices;
      size_t at = FirstNotStarting(ids, s, [t0](int64_t ts) { return ts <= t0; });
      if (at > 0) --at;
      for (; at < ids.size() && s.ts[ids[at]] < t1; ++at) {
        const uint32_t slice = ids[at];
        emit({s.ts[slice], s.end[slice], 1, slice});
      }
    }
    if (has_pending) visit(depth, pending);
  }
}

void TimelineIndex::ForEachSliceIn(uint32_t track, int64_t t0, int64_t t1,
                                   const std::function<void(uint32_t slice)>& visit) const {
  const model::SliceTable& s = model_.slices;
  for (uint16_t depth = 0; depth < rows_of_track_[track]; ++depth) {
    const CompactIds& ids = rows_[first_row_[track] + depth].slices;
    size_t at = FirstNotStarting(ids, s, [t0](int64_t ts) { return ts < t0; });
    for (; at < ids.size() && s.ts[ids[at]] < t1; ++at) {
      visit(ids[at]);
    }
  }
}

std::vector<CounterPoint> TimelineIndex::QueryCounter(uint32_t series, int64_t t0, int64_t t1,
                                                      int64_t ns_per_px) const {
  const auto& levels = counters_[series];
  const auto& base = levels[0].points;
  auto in_range = [&](const std::vector<CounterPoint>& points) {
    auto lo = std::lower_bound(points.begin(), points.end(), t0,
                               [](const CounterPoint& p, int64_t t) { return p.ts < t; });
    auto hi = std::lower_bound(lo, points.end(), t1,
                               [](const CounterPoint& p, int64_t t) { return p.ts < t; });
    if (lo != points.begin()) --lo;
    if (hi != points.end()) ++hi;
    return std::pair{lo, hi};
  };
  auto [lo, hi] = in_range(base);
  const int64_t pixels = std::max<int64_t>((t1 - t0) / std::max<int64_t>(ns_per_px, 1), 1);
  size_t level = 0;
  size_t samples = static_cast<size_t>(hi - lo);
  while (level + 1 < levels.size() && samples > static_cast<size_t>(2 * pixels)) {
    ++level;
    samples /= 2;
  }
  auto [first, last] = in_range(levels[level].points);
  std::vector<CounterPoint> out;
  for (auto it = first; it != last; ++it) {
    const int64_t bucket = (it->ts - t0) / std::max<int64_t>(ns_per_px, 1);
    if (!out.empty() && it->ts > t0 && out.back().ts > t0 &&
        (out.back().ts - t0) / std::max<int64_t>(ns_per_px, 1) == bucket) {
      out.back().min = std::min(out.back().min, it->min);
      out.back().max = std::max(out.back().max, it->max);
    } else {
      out.push_back(*it);
    }
  }
  return out;
}

std::vector<uint32_t> TimelineIndex::FlowsIn(int64_t t0, int64_t t1, size_t limit) const {
  const model::SliceTable& s = model_.slices;
  const model::FlowTable& f = model_.flows;
  auto it =
      std::lower_bound(flows_by_ts_.begin(), flows_by_ts_.end(), t0,
                       [&](uint32_t flow, int64_t t) { return s.ts[f.from_slice[flow]] < t; });
  std::vector<uint32_t> out;
  for (; it != flows_by_ts_.end() && s.ts[f.from_slice[*it]] < t1 && out.size() < limit; ++it) {
    out.push_back(*it);
  }
  return out;
}

std::vector<uint32_t> TimelineIndex::InstantsIn(uint32_t track, int64_t t0, int64_t t1,
                                                int64_t ns_per_px) const {
  const model::InstantTable& in = model_.instants;
  const auto& list = instants_[track];
  auto it = std::lower_bound(list.begin(), list.end(), t0,
                             [&](uint32_t row, int64_t t) { return in.ts[row] < t; });
  std::vector<uint32_t> out;
  for (; it != list.end() && in.ts[*it] < t1; ++it) {
    if (!out.empty() && in.ts[*it] - in.ts[out.back()] < ns_per_px) continue;
    out.push_back(*it);
  }
  return out;
}

size_t TimelineIndex::MemoryBytes() const {
  size_t bytes = first_row_.capacity() * 4 + rows_of_track_.capacity() * 2 +
                 flows_by_ts_.capacity() * 4 + rows_.capacity() * sizeof(Row);
  for (const Row& row : rows_) {
    bytes += row.slices.MemoryBytes();
    for (const Level& level : row.levels) bytes += level.spans.capacity() * sizeof(SliceSpan);
  }
  for (const auto& levels : counters_) {
    for (const auto& level : levels) bytes += level.points.capacity() * sizeof(CounterPoint);
  }
  for (const auto& list : instants_) bytes += list.capacity() * 4;
  return bytes;
}

}  // namespace aiprof::server
