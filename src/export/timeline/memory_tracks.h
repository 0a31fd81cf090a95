// How the memory analysis appears in the timelines: one counter track per memory pool and
// torch memory-timeline category ("Memory Activation (CUDA:0)"), on the pool's process,
// valued in bytes, from the category timeline's change points (analysis/memory.h).
#pragma once

#include <string>

#include "analysis/memory.h"

namespace aiprof::exporter {

inline std::string MemoryCategoryTrackName(const analysis::MemoryAnalysis& memory,
                                           const analysis::MemoryCategoryTrack& track) {
  return "Memory " + std::string(analysis::MemoryCategoryName(track.category)) + " (" +
         memory.pools[track.pool].name + ")";
}

}  // namespace aiprof::exporter
