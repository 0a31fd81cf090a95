// Writes the model as a Perfetto protobuf trace (trace_view_{ts}.pftrace): TrackDescriptors
// for processes, threads (one per lane) and counters, then TrackEvents (slice begin/end,
// instants, counters, flows) with interned names and categories, and CPU sampling lanes. Perfetto
// opens these far larger than JSON. Hand-encoded; no protobuf dependency. With an overlap result,
// its "Overlap Analysis" processes too (overlap_tracks.h); with a critical path, its "Critical
// path" track (pftrace_critical_path.h).
#pragma once

#include <string>

#include "analysis/cpu_profile/cpu_profile.h"
#include "analysis/critical_path/critical_path.h"
#include "analysis/memory.h"
#include "analysis/overlap.h"
#include "model/model.h"

namespace aiprof::exporter {

// `memory`: its category timeline as counter tracks (memory_tracks.h). `cpu_profile`: the
// AnalysisSet's symbolised CPU samples, written as CPU lanes (pftrace_cpu.h; without it the
// writer symbolises them itself). `critical_path`: when computed (AnalysisOptions::
// critical_path), written as the Critical path track.
bool WritePerfettoTrace(const model::Model& model, const std::string& path, std::string* error,
                        const analysis::OverlapResult* overlap = nullptr,
                        const analysis::MemoryAnalysis* memory = nullptr,
                        const analysis::CpuProfile* cpu_profile = nullptr,
                        const analysis::CriticalPathResult* critical_path = nullptr);

}  // namespace aiprof::exporter
