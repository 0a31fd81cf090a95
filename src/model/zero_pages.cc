#include "model/zero_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace aiprof::model {
namespace {

constexpr uintptr_t kRange = 2 << 20;

bool AllZero(const unsigned char* data, size_t bytes) {
  static const unsigned char kZeros[4096] = {};
  for (size_t at = 0; at < bytes; at += sizeof(kZeros)) {
    if (std::memcmp(data + at, kZeros, sizeof(kZeros)) != 0) return false;
  }
  return true;
}

// Gives back the all-zero whole ranges of `column`'s rows from `*from` (0: its first whole
// range) on, and moves `*from` to the end of the last whole range its rows cover.
template <typename T>
size_t Release(std::vector<T>& column, uintptr_t* from) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(column.data());
  const uintptr_t begin = std::max((first + kRange - 1) & ~(kRange - 1), *from);
  const uintptr_t end = (first + column.size() * sizeof(T)) & ~(kRange - 1);
  size_t released = 0;
  for (uintptr_t at = begin; at + kRange <= end; at += kRange) {
    auto* range = reinterpret_cast<unsigned char*>(at);
    if (AllZero(range, kRange) && madvise(range, kRange, MADV_DONTNEED) == 0) released += kRange;
  }
  *from = std::max(begin, end);
  return released;
}

// Calls visit(column) for every column of the model's tables.
template <typename Visit>
void ForEachColumn(Model& model, Visit&& visit) {
  SliceTable& s = model.slices;
  visit(s.ts), visit(s.end), visit(s.track), visit(s.name), visit(s.category), visit(s.args),
      visit(s.depth), visit(s.parent), visit(s.flags);
  InstantTable& i = model.instants;
  visit(i.ts), visit(i.track), visit(i.name), visit(i.category), visit(i.args);
  ArgTable& a = model.args;
  visit(a.key), visit(a.type), visit(a.value), visit(a.set_begin);
  CounterTable& c = model.counters;
  visit(c.series), visit(c.ts), visit(c.value);
  FlowTable& f = model.flows;
  visit(f.id), visit(f.from_slice), visit(f.to_slice), visit(f.category);
  MarkerTable& m = model.markers;
  visit(m.is_instant), visit(m.row), visit(m.event_type), visit(m.domain), visit(m.detail);
}

}  // namespace

size_t ReleaseZeroPages(Model& model) {
  size_t released = 0;
  ForEachColumn(model, [&](auto& column) {
    uintptr_t from = 0;
    released += Release(column, &from);
  });
  return released;
}

size_t ZeroPageReleaser::ReleaseFilled(Model& model) {
  size_t released = 0, index = 0;
  ForEachColumn(model, [&](auto& column) {
    if (index == looked_.size()) looked_.push_back({0, 0});
    auto& [storage, looked] = looked_[index++];
    const uintptr_t data = reinterpret_cast<uintptr_t>(column.data());
    if (data != storage) looked = 0;  // moved (or first seen): look from its start
    storage = data;
    released += Release(column, &looked);
  });
  return released;
}

}  // namespace aiprof::model
