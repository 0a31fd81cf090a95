// CriticalPathLane (server/critical_path_lane.h): the lane drawn from the kept entries (each
// step's long pieces and the stretches of short ones between them, the pieces of a step the
// window cuts or draws finer) is the lane drawn from every piece, for any window and pixel.
#include "server/critical_path_lane.h"

#include <gtest/gtest.h>

#include <random>

namespace aiprof::server {
namespace {

struct PathRun {
  std::vector<std::vector<LanePiece>> steps;
  std::vector<std::pair<int64_t, int64_t>> spans;
};

// Steps one after the other (gaps between them, some none), each tiled by pieces of mixed
// lengths (many short, a few long, some of no length).
PathRun RandomRun(std::mt19937_64& random, int steps) {
  PathRun run;
  int64_t t = 1000;
  for (int s = 0; s < steps; ++s) {
    t += static_cast<int64_t>(random() % 3) * static_cast<int64_t>(random() % 500);
    const int64_t begin = t;
    std::vector<LanePiece> pieces;
    const int count = 1 + static_cast<int>(random() % 200);
    for (int p = 0; p < count; ++p) {
      const uint64_t kind = random() % 20;
      const int64_t length = kind == 0  ? 0
                             : kind < 3 ? 2000 + static_cast<int64_t>(random() % 20000)
                                        : static_cast<int64_t>(random() % 300);
      pieces.push_back({t, t + length, static_cast<int>(random() % 7)});
      t += length;
    }
    run.spans.push_back({begin, t});
    run.steps.push_back(std::move(pieces));
  }
  return run;
}

TEST(CriticalPathLaneTest, KeptEntriesDrawWhatEveryPieceDraws) {
  std::mt19937_64 random(29);
  for (int trial = 0; trial < 20; ++trial) {
    const PathRun run = RandomRun(random, 1 + static_cast<int>(random() % 40));
    CriticalPathLane lane;
    size_t pieces = 0;
    for (size_t s = 0; s < run.steps.size(); ++s) {
      lane.AddStep(run.spans[s].first, run.spans[s].second, run.steps[s]);
      pieces += run.steps[s].size();
    }
    EXPECT_LE(lane.entries(), pieces);
    size_t solved = 0;
    const CriticalPathLane::StepPieces from_run = [&](size_t step, std::vector<LanePiece>* out) {
      ++solved;
      *out = run.steps[step];
    };
    const int64_t run_begin = run.spans.front().first, run_end = run.spans.back().second;
    for (int window = 0; window < 200; ++window) {
      const int64_t span = run_end - run_begin;
      int64_t t0 =
          run_begin - 100 + static_cast<int64_t>(random() % static_cast<uint64_t>(span + 200));
      int64_t t1 = t0 + 1 + static_cast<int64_t>(random() % static_cast<uint64_t>(span + 200));
      if (window % 4 == 0) {  // the whole run, as the timeline's first answer
        t0 = run_begin - 10;
        t1 = run_end + 10;
      }
      const int64_t px = 1 + static_cast<int64_t>(random() % 3000);
      const int64_t ns_per_px = std::max<int64_t>((t1 - t0) / px, 1);
      EXPECT_EQ(lane.Write(t0, t1, ns_per_px, 5, from_run),
                CriticalPathLane::WriteFromPieces(t0, t1, ns_per_px, 5, run.steps.size(), from_run))
          << trial << " " << t0 << " " << t1 << " " << ns_per_px;
    }
    EXPECT_GT(solved, 0u);
  }
}

// At full zoom-out no step is solved again: the entries draw the whole run.
TEST(CriticalPathLaneTest, TheWholeRunNeedsNoStepsPieces) {
  std::mt19937_64 random(3);
  const PathRun run = RandomRun(random, 50);
  CriticalPathLane lane;
  for (size_t s = 0; s < run.steps.size(); ++s) {
    lane.AddStep(run.spans[s].first, run.spans[s].second, run.steps[s]);
  }
  const int64_t t0 = run.spans.front().first - 1, t1 = run.spans.back().second + 1;
  const std::string drawn = lane.Write(
      t0, t1, (t1 - t0) / 1000, 0, [](size_t, auto*) { ADD_FAILURE() << "a step solved again"; });
  EXPECT_NE(drawn, "{\"pieces\":[]}");
}

}  // namespace
}  // namespace aiprof::server
