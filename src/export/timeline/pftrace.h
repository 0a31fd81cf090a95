// Writes the model as a Perfetto protobuf trace (trace_view_{ts}.pftrace): TrackDescriptors
// for processes, threads (one per lane) and counters, then TrackEvents (slice begin/end,
// instants, counters, flows) with interned names and categories. Perfetto opens these far
// larger than JSON. Hand-encoded; no protobuf dependency.
#pragma once

#include <string>

#include "model/model.h"

namespace aiprof::exporter {

bool WritePerfettoTrace(const model::Model& model, const std::string& path, std::string* error);

}  // namespace aiprof::exporter
