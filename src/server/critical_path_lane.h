// The critical path as a timeline lane (/api/critical_path/lane): the job's path over a
// window, its pieces merged to pixels. Every step's pieces are not kept (13 bytes a piece, two
// pieces a slice on a one-thread run: half the model at 50 M slices); per step the lane keeps
// what a pixel 1/kLongPiecesPerStep of the step wide or wider draws (or a coarser one, where the
// step has more pieces that long than 1 in kPiecesPerLongPiece): its pieces that long or
// longer, and each stretch of shorter pieces between them as one (begin, end, longest piece
// and its category). A step the window cuts, or one drawn finer than that, is drawn from
// its pieces, which the caller solves on demand (critical_path_api.cc). Both ways give the
// same answer: a stretch's pieces are each narrower than a pixel and follow one another, so
// the merge takes them all into one piece whatever their lengths (critical_path_lane_test).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace aiprof::server {

// A piece of a step's path: [begin, end) in the model's time, its PathCategory.
struct LanePiece {
  int64_t begin = 0;
  int64_t end = 0;
  int category = 0;
};

class CriticalPathLane {
 public:
  // A step keeps its pieces at least 1/kLongPiecesPerStep of it long, at most one in
  // kPiecesPerLongPiece of its pieces (at least kMinLongPieces), and the stretches between them.
  static constexpr int64_t kLongPiecesPerStep = 256;
  static constexpr size_t kPiecesPerLongPiece = 256;
  static constexpr size_t kMinLongPieces = 32;

  // Adds the next step (CriticalPathResult::steps' order) and its pieces in time order.
  void AddStep(int64_t begin, int64_t end, const std::vector<LanePiece>& pieces);
  // Steps' pieces a caller gives: `pieces` replaced with step `step`'s.
  using StepPieces = std::function<void(size_t step, std::vector<LanePiece>* pieces)>;
  // The lane's JSON over [t0, t1) (the model's time) at `ns_per_px`, times written relative
  // to `origin`: {"pieces":[[begin, duration, category], ...]}.
  std::string Write(int64_t t0, int64_t t1, int64_t ns_per_px, int64_t origin,
                    const StepPieces& step_pieces) const;
  // The same from every step's pieces (the reference the kept entries must match).
  static std::string WriteFromPieces(int64_t t0, int64_t t1, int64_t ns_per_px, int64_t origin,
                                     size_t steps, const StepPieces& step_pieces);
  size_t entries() const { return entries_.size(); }

 private:
  // A piece at least the step's `finest` long, or a stretch of shorter ones.
  struct Entry {
    int64_t begin = 0;
    int64_t end = 0;
    int64_t longest = 0;  // a piece: its length
    uint8_t category = 0;
    bool stretch = false;
  };
  struct Step {
    int64_t begin = 0, end = 0;
    int64_t finest = 0;  // the entries hold what a pixel this wide or wider draws
    uint32_t first_entry = 0, entry_count = 0;
  };
  std::vector<Step> steps_;
  std::vector<Entry> entries_;
  std::vector<int64_t> lengths_;  // AddStep's scratch
};

}  // namespace aiprof::server
