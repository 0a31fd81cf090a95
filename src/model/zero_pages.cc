#include "model/zero_pages.h"

#include <sys/mman.h>

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

template <typename T>
size_t Release(std::vector<T>& column) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(column.data());
  const uintptr_t begin = (first + kRange - 1) & ~(kRange - 1);
  const uintptr_t end = (first + column.size() * sizeof(T)) & ~(kRange - 1);
  size_t released = 0;
  for (uintptr_t at = begin; at + kRange <= end; at += kRange) {
    auto* range = reinterpret_cast<unsigned char*>(at);
    if (AllZero(range, kRange) && madvise(range, kRange, MADV_DONTNEED) == 0) released += kRange;
  }
  return released;
}

}  // namespace

size_t ReleaseZeroPages(Model& model) {
  size_t released = 0;
  SliceTable& s = model.slices;
  released += Release(s.ts) + Release(s.end) + Release(s.track) + Release(s.name) +
              Release(s.category) + Release(s.args) + Release(s.depth) + Release(s.parent) +
              Release(s.flags);
  InstantTable& i = model.instants;
  released +=
      Release(i.ts) + Release(i.track) + Release(i.name) + Release(i.category) + Release(i.args);
  ArgTable& a = model.args;
  released += Release(a.key) + Release(a.type) + Release(a.value) + Release(a.set_begin);
  CounterTable& c = model.counters;
  released += Release(c.series) + Release(c.ts) + Release(c.value);
  FlowTable& f = model.flows;
  released += Release(f.id) + Release(f.from_slice) + Release(f.to_slice) + Release(f.category);
  MarkerTable& m = model.markers;
  released += Release(m.is_instant) + Release(m.row) + Release(m.event_type) + Release(m.domain) +
              Release(m.detail);
  return released;
}

}  // namespace aiprof::model
