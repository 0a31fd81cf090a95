// What the analysis benchmarks share: every allocation of the process counted (the
// replaced operator new below: include this header from one file per benchmark binary), so
// a figure is the analyses' own peak heap on top of the model; and a builder of the
// in-memory model they run on.
#pragma once

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "model/model.h"

namespace {

std::atomic<int64_t> g_allocated{0}, g_peak{0};

void Count(void* p) {
  int64_t now = g_allocated.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) +
                static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

void* operator new(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  Count(p);
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_allocated.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  operator delete(p);
}

namespace {

using aiprof::model::Model;

struct Builder {
  Model m;
  uint32_t AddProcess(uint32_t pid, int32_t device) {
    auto& p = m.processes;
    p.pid.push_back(pid);
    p.host.push_back(m.strings.Intern("bench-host"));
    p.name.push_back(m.strings.Intern(device < 0 ? "python3" : "GPU"));
    p.label.push_back(0);
    p.sort_index.push_back(static_cast<int64_t>(p.size()));
    p.device_id.push_back(device);
    p.rank.push_back(0);
    p.metadata.emplace_back();
    return static_cast<uint32_t>(p.size() - 1);
  }
  uint32_t AddThread(uint32_t process, uint32_t tid) {
    m.threads.process.push_back(process);
    m.threads.tid.push_back(tid);
    m.threads.name.push_back(0);
    m.threads.sort_index.push_back(0);
    m.tracks.thread.push_back(static_cast<uint32_t>(m.threads.size() - 1));
    m.tracks.lane.push_back(0);
    return static_cast<uint32_t>(m.tracks.size() - 1);
  }
  uint32_t Slice(uint32_t track, int64_t ts, int64_t end, uint32_t name, uint32_t category) {
    auto& s = m.slices;
    s.ts.push_back(ts);
    s.end.push_back(end);
    s.track.push_back(track);
    s.name.push_back(name);
    s.category.push_back(category);
    s.args.push_back(0);
    s.depth.push_back(0);
    s.parent.push_back(aiprof::model::kNoRow);
    s.flags.push_back(0);
    return static_cast<uint32_t>(s.size() - 1);
  }
};

}  // namespace
