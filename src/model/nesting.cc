#include "model/nesting.h"

#include <algorithm>
#include <span>
#include <unordered_map>

#include "model/huge_pages.h"

namespace aiprof::model {
namespace {

// Lays out `rows` (all on one track) and returns those that do not fit.
std::vector<uint32_t> NestTrack(SliceTable& s, std::span<uint32_t> rows) {
  auto before = [&](uint32_t a, uint32_t b) {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    if (s.end[a] != s.end[b]) return s.end[a] > s.end[b];
    return a < b;
  };
  // Rows arrive in record order, which is almost always start order already.
  if (!std::is_sorted(rows.begin(), rows.end(), before))
    std::sort(rows.begin(), rows.end(), before);
  std::vector<uint32_t> stack;
  std::vector<uint32_t> misfits;
  for (uint32_t row : rows) {
    while (!stack.empty() && s.end[stack.back()] <= s.ts[row]) stack.pop_back();
    if (!stack.empty() && s.end[row] > s.end[stack.back()]) {
      misfits.push_back(row);
      continue;
    }
    s.depth[row] = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
    s.parent[row] = stack.empty() ? kNoRow : stack.back();
    stack.push_back(row);
  }
  return misfits;
}

}  // namespace

void ResolveNesting(Model& model) {
  SliceTable& s = model.slices;
  TrackTable& tracks = model.tracks;
  // Bucket slice rows by track (counting sort keeps it linear).
  std::vector<uint32_t> offsets(tracks.size() + 1, 0);
  for (uint32_t track : s.track) ++offsets[track + 1];
  for (size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
  // Filled completely below; on huge pages (model/huge_pages.h) as the columns are.
  std::vector<uint32_t> order;
  ReserveOnHugePages(order, s.size());
  order.resize(s.size());
  {
    std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
    for (uint32_t row = 0; row < s.size(); ++row) order[cursor[s.track[row]]++] = row;
  }
  // (thread, lane) → track, to find or add the lane a misfit moves to.
  std::unordered_map<uint64_t, uint32_t> lanes;
  for (uint32_t t = 0; t < tracks.size(); ++t) {
    lanes[(uint64_t{tracks.thread[t]} << 32) | tracks.lane[t]] = t;
  }
  size_t original_tracks = tracks.size();
  for (size_t track = 0; track < original_tracks; ++track) {
    // The track's rows are laid out in place in `order`; misfits, rare, in their own list.
    std::span<uint32_t> rows(order.data() + offsets[track], offsets[track + 1] - offsets[track]);
    std::vector<uint32_t> moved;
    uint32_t lane = tracks.lane[track];
    while (!rows.empty()) {
      std::vector<uint32_t> misfits = NestTrack(s, rows);
      if (misfits.empty()) break;
      ++lane;
      uint64_t key = (uint64_t{tracks.thread[track]} << 32) | lane;
      auto [it, inserted] = lanes.emplace(key, static_cast<uint32_t>(tracks.size()));
      if (inserted) {
        tracks.thread.push_back(tracks.thread[track]);
        tracks.lane.push_back(lane);
      }
      for (uint32_t row : misfits) {
        s.track[row] = it->second;
        s.flags[row] |= kSliceMovedLane;
      }
      // A lane that already had slices of its own would need them merged in; lanes are
      // only ever created here, so the misfits are all it holds.
      moved = std::move(misfits);
      rows = moved;
    }
  }
}

}  // namespace aiprof::model
