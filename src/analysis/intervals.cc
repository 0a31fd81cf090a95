#include "analysis/intervals.h"

#include <algorithm>

namespace aiprof::analysis {

void MergeInPlace(std::vector<Interval>& intervals) {
  const auto by_begin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_begin)) {
    std::vector<Interval> merged = UnionOf(intervals, [](const Interval& i) { return i; });
    intervals.swap(merged);
    return;
  }
  size_t out = 0;  // sorted already: merged where it lies
  for (const Interval& next : intervals) {
    if (next.end <= next.begin) continue;
    if (out > 0 && next.begin <= intervals[out - 1].end) {
      intervals[out - 1].end = std::max(intervals[out - 1].end, next.end);
    } else {
      intervals[out++] = next;
    }
  }
  intervals.resize(out);
  if (intervals.capacity() > out + out / 8) intervals.shrink_to_fit();
}

void AppendMerged(std::vector<Interval>& merged, const Interval& next) {
  if (next.end <= next.begin) return;
  if (!merged.empty() && next.begin <= merged.back().end) {
    merged.back().end = std::max(merged.back().end, next.end);
  } else {
    merged.push_back(next);
  }
}

void MergedListBuilder::Append(const Interval& next) {
  if (next.end <= next.begin) return;
  if (!chunks_.empty() && next.begin <= chunks_.back().back().end) {
    Interval& last = chunks_.back().back();
    last.end = std::max(last.end, next.end);
    return;
  }
  if (chunks_.empty() || chunks_.back().size() == kChunk) {
    chunks_.emplace_back();
    chunks_.back().reserve(kChunk);
  }
  chunks_.back().push_back(next);
}

std::vector<Interval> MergedListBuilder::Take() {
  size_t total = 0;
  for (const std::vector<Interval>& chunk : chunks_) total += chunk.size();
  std::vector<Interval> merged;
  merged.reserve(total);
  for (std::vector<Interval>& chunk : chunks_) {
    merged.insert(merged.end(), chunk.begin(), chunk.end());
    std::vector<Interval>().swap(chunk);
  }
  chunks_.clear();
  return merged;
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& i : merged) total += i.length();
  return total;
}

int64_t LengthWithin(const std::vector<Interval>& merged, int64_t begin, int64_t end) {
  auto first = std::upper_bound(merged.begin(), merged.end(), begin,
                                [](int64_t t, const Interval& i) { return t < i.end; });
  int64_t total = 0;
  for (auto it = first; it != merged.end() && it->begin < end; ++it) {
    total += std::min(it->end, end) - std::max(it->begin, begin);
  }
  return total;
}

}  // namespace aiprof::analysis
