// Each track's slices by start (the longer first at the same start), as the critical path's
// run index reads them (RunIndex::WindowSlices). The importers write a thread's slices in
// record order, so a track's slices are mostly long stretches of consecutive table rows
// already in that order: such a track is held as those stretches (8 bytes each), and only a
// track whose rows are scattered or out of order is held as its rows listed and sorted (4
// bytes a slice). On a run whose threads were recorded chunk by chunk this is a few bytes in
// all, not 4 bytes a slice (200 MB at 50 M slices, most of what the UI's server held for the
// critical path besides its result).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

class TrackOrder {
 public:
  TrackOrder() = default;
  TrackOrder(const model::SliceTable& slices, size_t tracks);

  // The positions in the track's order of its slices that start in [begin, end).
  std::pair<uint32_t, uint32_t> Positions(uint32_t track, int64_t begin, int64_t end) const;
  // The track's slice at `position` of its order.
  uint32_t At(uint32_t track, uint32_t position) const;
  // The track's slices at positions [from, to), appended to `out` in order.
  void Append(uint32_t track, uint32_t from, uint32_t to, std::vector<uint32_t>* out) const;
  // The track's slices in order (tests).
  std::vector<uint32_t> Rows(uint32_t track) const;
  size_t listed_rows() const { return listed_.size(); }
  size_t stretches() const { return stretches_.size(); }

 private:
  // A stretch of the track's order: rows [first, end) of the table, or of `listed_` when the
  // track is listed; `position` is where it starts in the track's order.
  struct Stretch {
    uint32_t first = 0, end = 0;
    uint32_t position = 0;
  };
  // The first position of `track` whose slice starts at or after `time`.
  uint32_t LowerBound(uint32_t track, int64_t time) const;
  uint32_t size(uint32_t track) const;

  const model::SliceTable* slices_ = nullptr;
  std::vector<uint32_t> track_first_;  // per track + 1: its first stretch
  std::vector<uint8_t> track_listed_;  // per track
  std::vector<Stretch> stretches_;
  std::vector<uint32_t> listed_;
};

}  // namespace aiprof::analysis
