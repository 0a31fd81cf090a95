// Writes the model as a Perfetto protobuf trace (trace_view_{ts}.pftrace): TrackDescriptors
// for processes, threads (one per lane) and counters, then TrackEvents (slice begin/end,
// instants, counters, flows) with interned names and categories. Perfetto opens these far
// larger than JSON. Hand-encoded; no protobuf dependency. With an overlap result, its
// "Overlap Analysis" processes too (overlap_tracks.h).
#pragma once

#include <string>

#include "analysis/overlap.h"
#include "model/model.h"

namespace aiprof::exporter {

bool WritePerfettoTrace(const model::Model& model, const std::string& path, std::string* error,
                        const analysis::OverlapResult* overlap = nullptr);

}  // namespace aiprof::exporter
