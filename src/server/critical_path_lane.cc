#include "server/critical_path_lane.h"

#include <algorithm>
#include <functional>

namespace aiprof::server {
namespace {

// [begin, duration, category] per piece in the window; pieces narrower than a pixel are
// merged into the piece before them when it is within a pixel (the longer's category).
class LaneMerge {
 public:
  LaneMerge(int64_t t0, int64_t t1, int64_t ns_per_px, int64_t origin)
      : t0_(t0), t1_(t1), ns_per_px_(ns_per_px), origin_(origin) {
    out_ = "{\"pieces\":[";
  }

  void Piece(const LanePiece& s) {
    if (s.end <= t0_ || s.begin >= t1_) return;
    const int64_t length = s.end - s.begin;
    if (end_ >= 0 && s.begin - end_ < ns_per_px_ &&
        (length < ns_per_px_ || end_ - begin_ < ns_per_px_)) {
      end_ = std::max(end_, s.end);
      if (length > longest_) {
        longest_ = length;
        category_ = s.category;
      }
      return;
    }
    Flush();
    begin_ = s.begin;
    end_ = s.end;
    longest_ = length;
    category_ = s.category;
  }

  // Pieces inside the window, one after the other from `begin` to `end`, each narrower than a
  // pixel; the first longest is `longest` long, of `category`. Piece by piece, the first
  // joins the piece before it or starts one, and each next one joins (it is within a pixel
  // of the end, which it begins at, and narrower than one): so all of them together do.
  void Stretch(int64_t begin, int64_t end, int64_t longest, int category) {
    if (end_ >= 0 && begin - end_ < ns_per_px_) {
      end_ = std::max(end_, end);
      if (longest > longest_) {
        longest_ = longest;
        category_ = category;
      }
      return;
    }
    Flush();
    begin_ = begin;
    end_ = end;
    longest_ = longest;
    category_ = category;
  }

  std::string Finish() {
    Flush();
    out_ += "]}";
    return std::move(out_);
  }

 private:
  void Flush() {
    if (end_ < 0) return;
    if (!first_) out_ += ',';
    first_ = false;
    out_ += '[' + std::to_string(begin_ - origin_) + ',' + std::to_string(end_ - begin_) + ',' +
            std::to_string(category_) + ']';
    end_ = -1;
  }

  const int64_t t0_, t1_, ns_per_px_, origin_;
  std::string out_;
  bool first_ = true;
  int64_t begin_ = 0, end_ = -1, longest_ = 0;
  int category_ = 0;
};

}  // namespace

void CriticalPathLane::AddStep(int64_t begin, int64_t end, const std::vector<LanePiece>& pieces) {
  Step step;
  step.begin = begin;
  step.end = end;
  // The pieces this long or longer are kept one by one: at most kLongPiecesPerStep of them
  // (they sum to at most the step), and at most one in kPiecesPerLongPiece of the step's pieces
  // (or kMinLongPieces).
  int64_t kept_from = 1;
  const size_t most = std::max(kMinLongPieces, pieces.size() / kPiecesPerLongPiece);
  if (pieces.size() > most) {
    lengths_.clear();
    for (const LanePiece& piece : pieces) lengths_.push_back(piece.end - piece.begin);
    std::nth_element(lengths_.begin(), lengths_.begin() + static_cast<std::ptrdiff_t>(most - 1),
                     lengths_.end(), std::greater<>());
    kept_from = lengths_[most - 1] + 1;
  }
  step.finest = std::max({(end - begin) / kLongPiecesPerStep, kept_from, int64_t{1}});
  step.first_entry = static_cast<uint32_t>(entries_.size());
  for (const LanePiece& piece : pieces) {
    const int64_t length = piece.end - piece.begin;
    const bool short_piece = length < step.finest;
    Entry* last = entries_.size() > step.first_entry ? &entries_.back() : nullptr;
    if (short_piece && last != nullptr && last->stretch) {
      last->end = std::max(last->end, piece.end);
      if (length > last->longest) {
        last->longest = length;
        last->category = static_cast<uint8_t>(piece.category);
      }
      continue;
    }
    entries_.push_back(
        {piece.begin, piece.end, length, static_cast<uint8_t>(piece.category), short_piece});
  }
  step.entry_count = static_cast<uint32_t>(entries_.size()) - step.first_entry;
  steps_.push_back(step);
}

std::string CriticalPathLane::Write(int64_t t0, int64_t t1, int64_t ns_per_px, int64_t origin,
                                    const StepPieces& step_pieces) const {
  LaneMerge merge(t0, t1, ns_per_px, origin);
  std::vector<LanePiece> pieces;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    if (step.end <= t0 || step.begin >= t1) continue;
    // A step the window cuts has pieces the window leaves out; a finer pixel draws pieces a
    // stretch holds apart.
    if (step.begin <= t0 || step.end >= t1 || ns_per_px < step.finest) {
      step_pieces(i, &pieces);
      for (const LanePiece& piece : pieces) merge.Piece(piece);
      continue;
    }
    for (uint32_t e = step.first_entry; e < step.first_entry + step.entry_count; ++e) {
      const Entry& entry = entries_[e];
      if (entry.stretch) {
        merge.Stretch(entry.begin, entry.end, entry.longest, entry.category);
      } else {
        merge.Piece({entry.begin, entry.end, entry.category});
      }
    }
  }
  return merge.Finish();
}

std::string CriticalPathLane::WriteFromPieces(int64_t t0, int64_t t1, int64_t ns_per_px,
                                              int64_t origin, size_t steps,
                                              const StepPieces& step_pieces) {
  LaneMerge merge(t0, t1, ns_per_px, origin);
  std::vector<LanePiece> pieces;
  for (size_t i = 0; i < steps; ++i) {
    step_pieces(i, &pieces);
    for (const LanePiece& piece : pieces) merge.Piece(piece);
  }
  return merge.Finish();
}

}  // namespace aiprof::server
