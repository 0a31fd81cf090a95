#include "analysis/critical_path/track_order.h"

#include <algorithm>

#include "analysis/run_sort.h"

namespace aiprof::analysis {
namespace {

// A track's order: by start, the longer first, then by row.
struct StartOrder {
  const model::SliceTable& s;
  bool operator()(uint32_t a, uint32_t b) const {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    if (s.end[a] != s.end[b]) return s.end[a] > s.end[b];
    return a < b;
  }
};

}  // namespace

TrackOrder::TrackOrder(const model::SliceTable& slices, size_t tracks) : slices_(&slices) {
  const StartOrder before{slices};
  // Per track: its rows, its stretches of consecutive rows, and whether its rows in table
  // order are in start order.
  std::vector<uint32_t> rows(tracks, 0), runs(tracks, 0), last(tracks, model::kNoRow);
  std::vector<uint8_t> sorted(tracks, 1);
  for (uint32_t row = 0; row < slices.size(); ++row) {
    const uint32_t t = slices.track[row];
    if (last[t] != model::kNoRow && !before(last[t], row)) sorted[t] = 0;
    if (last[t] == model::kNoRow || last[t] + 1 != row) ++runs[t];
    last[t] = row;
    ++rows[t];
  }
  // Stretches cost 12 bytes, a listed row 4: a track of short stretches is listed.
  track_listed_.assign(tracks, 0);
  track_first_.assign(tracks + 1, 0);
  std::vector<uint32_t> listed_first(tracks + 1, 0);
  for (size_t t = 0; t < tracks; ++t) {
    track_listed_[t] = !sorted[t] || uint64_t{runs[t]} * 3 > rows[t];
    track_first_[t + 1] = track_first_[t] + (track_listed_[t] ? (rows[t] > 0) : runs[t]);
    listed_first[t + 1] = listed_first[t] + (track_listed_[t] ? rows[t] : 0);
  }
  stretches_.resize(track_first_[tracks]);
  listed_.resize(listed_first[tracks]);
  for (size_t t = 0; t < tracks; ++t) {
    if (track_listed_[t] && rows[t] > 0) {
      stretches_[track_first_[t]] = {listed_first[t], listed_first[t + 1], 0};
    }
  }
  std::vector<uint32_t> next_stretch(track_first_.begin(), track_first_.end() - 1);
  std::vector<uint32_t> next_listed(listed_first.begin(), listed_first.end() - 1);
  std::fill(last.begin(), last.end(), model::kNoRow);
  std::fill(rows.begin(), rows.end(), 0);
  for (uint32_t row = 0; row < slices.size(); ++row) {
    const uint32_t t = slices.track[row];
    if (track_listed_[t]) {
      listed_[next_listed[t]++] = row;
    } else if (last[t] != model::kNoRow && last[t] + 1 == row) {
      stretches_[next_stretch[t] - 1].end = row + 1;
    } else {
      stretches_[next_stretch[t]++] = {row, row + 1, rows[t]};
    }
    last[t] = row;
    ++rows[t];
  }
  // Listed rows come in record order, almost always start order already (model/nesting.cc).
  std::vector<uint32_t> order;
  for (size_t t = 0; t < tracks; ++t) {
    if (!track_listed_[t] || sorted[t]) continue;
    const auto first = listed_.begin() + listed_first[t];
    const auto end = listed_.begin() + listed_first[t + 1];
    order.assign(first, end);
    StableSortRuns(order, before);
    std::copy(order.begin(), order.end(), first);
  }
}

uint32_t TrackOrder::size(uint32_t track) const {
  if (track_first_[track] == track_first_[track + 1]) return 0;
  const Stretch& last = stretches_[track_first_[track + 1] - 1];
  return last.position + (last.end - last.first);
}

uint32_t TrackOrder::At(uint32_t track, uint32_t position) const {
  const auto first = stretches_.begin() + track_first_[track];
  const auto end = stretches_.begin() + track_first_[track + 1];
  const auto found = std::prev(std::upper_bound(
      first, end, position, [](uint32_t p, const Stretch& s) { return p < s.position; }));
  const uint32_t index = found->first + (position - found->position);
  return track_listed_[track] ? listed_[index] : index;
}

uint32_t TrackOrder::LowerBound(uint32_t track, int64_t time) const {
  uint32_t low = 0, high = size(track);
  while (low < high) {
    const uint32_t middle = low + (high - low) / 2;
    if (slices_->ts[At(track, middle)] < time) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

std::pair<uint32_t, uint32_t> TrackOrder::Positions(uint32_t track, int64_t begin,
                                                    int64_t end) const {
  const uint32_t from = LowerBound(track, begin);
  return {from, std::max(from, LowerBound(track, end))};
}

void TrackOrder::Append(uint32_t track, uint32_t from, uint32_t to,
                        std::vector<uint32_t>* out) const {
  if (from >= to) return;
  const auto first = stretches_.begin() + track_first_[track];
  const auto last = stretches_.begin() + track_first_[track + 1];
  auto stretch = std::prev(std::upper_bound(
      first, last, from, [](uint32_t p, const Stretch& s) { return p < s.position; }));
  for (uint32_t position = from; position < to; ++stretch) {
    const uint32_t skip = position - stretch->position;
    const uint32_t take = std::min(to - position, stretch->end - stretch->first - skip);
    const uint32_t index = stretch->first + skip;
    if (track_listed_[track]) {
      out->insert(out->end(), listed_.begin() + index, listed_.begin() + index + take);
    } else {
      for (uint32_t row = index; row < index + take; ++row) out->push_back(row);
    }
    position += take;
  }
}

std::vector<uint32_t> TrackOrder::Rows(uint32_t track) const {
  std::vector<uint32_t> rows;
  Append(track, 0, size(track), &rows);
  return rows;
}

}  // namespace aiprof::analysis
