// Level-of-detail summaries of the model's timeline, built once when `aiprof ui` starts, so
// that a request for a time range at a pixel resolution costs about as much as the pixels
// it fills, never as much as the events in the range (a 10 M-event run is never shipped
// whole to the browser).
//
// Slices: one row per (track, depth); slices of a row do not overlap. Level 0 is the row's
// slices by start time; each coarser level merges neighbours when the gap between them and
// both their widths are below the level's gap (so a slice wider than that keeps its name),
// the gap chosen (the n/4-th largest such key) so that the level holds at most a quarter of the
// spans of the level below: all levels together hold at most a third as many spans as the
// row has slices (memory stays well below the model's). A query picks the coarsest level whose gap
// is below one pixel (merging what is invisible anyway), then merges on the fly what still falls
// within a pixel. Counters: per series, a min/max pyramid halving the samples per level.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "model/model.h"
#include "server/compact_ids.h"

namespace aiprof::server {

// A run of merged slices of one row: [ts, end), `count` slices, `slice` the longest one
// (its name labels the span).
struct SliceSpan {
  int64_t ts = 0;
  int64_t end = 0;
  uint32_t count = 0;
  uint32_t slice = 0;
};

struct CounterPoint {
  int64_t ts = 0;
  double min = 0;
  double max = 0;
};

class TimelineIndex {
 public:
  explicit TimelineIndex(const model::Model& model);

  uint16_t RowsOfTrack(uint32_t track) const { return rows_of_track_[track]; }
  size_t InstantsOfTrack(uint32_t track) const { return instants_[track].size(); }
  // Visits the spans of `track` that intersect [t0, t1), merged to `ns_per_px`.
  void QuerySlices(uint32_t track, int64_t t0, int64_t t1, int64_t ns_per_px,
                   const std::function<void(uint16_t depth, const SliceSpan&)>& visit) const;
  // Every slice row of `track` at any depth starting in [t0, t1) (range statistics).
  void ForEachSliceIn(uint32_t track, int64_t t0, int64_t t1,
                      const std::function<void(uint32_t slice)>& visit) const;
  // Min/max of the series' samples per pixel over [t0, t1), plus the samples just outside
  // so that a line reaches the edges.
  std::vector<CounterPoint> QueryCounter(uint32_t series, int64_t t0, int64_t t1,
                                         int64_t ns_per_px) const;
  // Flow rows whose source slice starts in [t0, t1), by start time, at most `limit`.
  std::vector<uint32_t> FlowsIn(int64_t t0, int64_t t1, size_t limit) const;
  // Instant rows of `track` in [t0, t1), at most one per pixel.
  std::vector<uint32_t> InstantsIn(uint32_t track, int64_t t0, int64_t t1, int64_t ns_per_px) const;

  size_t MemoryBytes() const;

 private:
  struct Level {
    int64_t gap_ns = 0;  // neighbours closer than this are merged
    std::vector<SliceSpan> spans;
  };
  struct Row {
    CompactIds slices;          // level 0, by start time
    std::vector<Level> levels;  // coarser levels, finest first
  };
  struct CounterLevel {
    std::vector<CounterPoint> points;  // level k: 2^k samples per point
  };

  void BuildLevels(Row& row) const;

  const model::Model& model_;
  std::vector<uint32_t> first_row_;      // per track: index of its depth-0 row in rows_
  std::vector<uint16_t> rows_of_track_;  // per track: max depth + 1
  std::vector<Row> rows_;
  std::vector<std::vector<CounterLevel>> counters_;  // per series, level 0 = samples
  std::vector<uint32_t> flows_by_ts_;
  std::vector<std::vector<uint32_t>> instants_;  // per track, by time
};

}  // namespace aiprof::server
