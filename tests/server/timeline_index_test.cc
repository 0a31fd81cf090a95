#include "server/timeline_index.h"

#include <gtest/gtest.h>

namespace aiprof::server {
namespace {

// One process, one thread, one track holding `count` slices of 10 ns every 100 ns (depth 0)
// and a counter series of `count` samples every 100 ns.
model::Model RegularModel(uint32_t count) {
  model::Model m;
  m.processes.pid.push_back(1);
  m.processes.host.push_back(0);
  m.processes.name.push_back(m.strings.Intern("job"));
  m.processes.label.push_back(0);
  m.processes.sort_index.push_back(0);
  m.processes.device_id.push_back(-1);
  m.processes.rank.push_back(-1);
  m.processes.metadata.emplace_back("{}");
  m.threads.process.push_back(0);
  m.threads.tid.push_back(1);
  m.threads.name.push_back(0);
  m.threads.sort_index.push_back(0);
  m.tracks.thread.push_back(0);
  m.tracks.lane.push_back(0);
  const model::StringId name = m.strings.Intern("op");
  m.counter_series.name.push_back(m.strings.Intern("cpu"));
  m.counter_series.process.push_back(0);
  m.counter_series.scope.push_back(0);
  m.counter_series.instance.push_back(0);
  m.counter_series.unit.push_back(0);
  for (uint32_t i = 0; i < count; ++i) {
    const int64_t ts = 100 * static_cast<int64_t>(i);
    m.slices.ts.push_back(ts);
    m.slices.end.push_back(ts + 10);
    m.slices.track.push_back(0);
    m.slices.name.push_back(name);
    m.slices.category.push_back(0);
    m.slices.args.push_back(0);
    m.slices.depth.push_back(0);
    m.slices.parent.push_back(model::kNoRow);
    m.slices.flags.push_back(0);
    m.counters.series.push_back(0);
    m.counters.ts.push_back(ts);
    m.counters.value.push_back(static_cast<double>(i % 100));
  }
  return m;
}

struct Visited {
  size_t spans = 0;
  uint64_t slices = 0;
};

Visited Query(const TimelineIndex& index, int64_t t0, int64_t t1, int64_t ns_per_px) {
  Visited visited;
  index.QuerySlices(0, t0, t1, ns_per_px, [&](uint16_t, const SliceSpan& span) {
    ++visited.spans;
    visited.slices += span.count;
  });
  return visited;
}

TEST(TimelineIndex, DeepZoomReturnsEverySliceInTheWindow) {
  const model::Model m = RegularModel(100000);
  const TimelineIndex index(m);
  const Visited visited = Query(index, 50000, 60000, 1);  // 1 ns per pixel
  EXPECT_EQ(visited.spans, 100u);
  EXPECT_EQ(visited.slices, 100u);
}

TEST(TimelineIndex, FullZoomOutIsBoundedByThePixelsAndCountsEverySlice) {
  const model::Model m = RegularModel(100000);
  const TimelineIndex index(m);
  const int64_t end = 100 * 100000;
  const Visited visited = Query(index, 0, end, end / 1000);  // 1000 pixels
  EXPECT_LE(visited.spans, 1001u);
  EXPECT_EQ(visited.slices, 100000u);  // merged spans still count what they hold
}

TEST(TimelineIndex, WideNeighboursKeepTheirOwnSpans) {
  // Back-to-back 1 µs slices (like consecutive steps): at 100 ns per pixel each is 10 px
  // wide and must stay a separate, named span even though no gap separates them.
  model::Model m = RegularModel(1000);
  for (size_t i = 0; i < m.slices.size(); ++i) {
    m.slices.ts[i] = 1000 * static_cast<int64_t>(i);
    m.slices.end[i] = m.slices.ts[i] + 1000;
  }
  const TimelineIndex index(m);
  const Visited wide = Query(index, 0, 1000 * 1000, 100);
  EXPECT_EQ(wide.spans, 1000u);
  const Visited narrow = Query(index, 0, 1000 * 1000, 10000);  // 0.1 px each: merged
  EXPECT_LT(narrow.spans, 10u);
  EXPECT_EQ(narrow.slices, 1000u);
}

TEST(TimelineIndex, LevelsCostLessThanTheSlicesThemselves) {
  const model::Model m = RegularModel(100000);
  const TimelineIndex index(m);
  // Level 0 is 4 bytes per slice; the coarser levels add at most a third of the count in
  // 24-byte spans; the counter pyramid at most doubles its samples.
  EXPECT_LT(index.MemoryBytes(), 100000u * (4 + 24 / 3 + 2 * 24) + 4096);
}

TEST(TimelineIndex, CounterPyramidKeepsMinAndMaxPerPixel) {
  const model::Model m = RegularModel(100000);
  const TimelineIndex index(m);
  const int64_t end = 100 * 100000;
  const std::vector<CounterPoint> points = index.QueryCounter(0, 0, end, end / 200);
  EXPECT_LE(points.size(), 404u);
  EXPECT_GE(points.size(), 100u);
  double low = 1e9;
  double high = -1;
  for (const CounterPoint& p : points) {
    low = std::min(low, p.min);
    high = std::max(high, p.max);
  }
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, 99);
}

TEST(TimelineIndex, InstantsAndFlowsAreFoundByTime) {
  model::Model m = RegularModel(10);
  m.instants.ts = {150, 155, 500};
  m.instants.track = {0, 0, 0};
  m.instants.name = {0, 0, 0};
  m.instants.category = {0, 0, 0};
  m.instants.args = {0, 0, 0};
  m.flows.id = {1};
  m.flows.from_slice = {2};
  m.flows.to_slice = {5};
  m.flows.category = {0};
  const TimelineIndex index(m);
  EXPECT_EQ(index.InstantsIn(0, 100, 600, 1).size(), 3u);
  EXPECT_EQ(index.InstantsIn(0, 100, 600, 50).size(), 2u);  // 150 and 155 share a pixel
  EXPECT_EQ(index.FlowsIn(150, 250, 10).size(), 1u);
  EXPECT_TRUE(index.FlowsIn(300, 900, 10).empty());
}

}  // namespace
}  // namespace aiprof::server
