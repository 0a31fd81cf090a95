// Writes the model as a Chrome Trace Event / Kineto JSON timeline (trace_view_{ts}.json):
// top-level schemaVersion, deviceProperties, distributedInfo, baseTimeNanoseconds,
// displayTimeUnit, traceEvents, traceName; µs with 3 decimals relative to
// baseTimeNanoseconds; X slices, i markers, C counters (including "Dropped events"),
// s/f flows, and one M event per process/thread name, label and sort index; with an
// overlap result, its "Overlap Analysis" processes (overlap_tracks.h); with a critical path,
// its "Critical path" lane (critical_path_track.h). Metadata a program
// added under "user.<key>" (aiprof_add_metadata, the Python API's add_metadata) is a
// top-level "<key>", as Kineto writes torch.profiler's metadata.
#pragma once

#include <string>

#include "analysis/cpu_profile/cpu_profile.h"
#include "analysis/critical_path/critical_path.h"
#include "analysis/memory.h"
#include "analysis/overlap.h"
#include "model/model.h"

namespace aiprof::exporter {

// Whole seconds below the earliest event: relative times stay small enough for doubles to
// hold them to the nanosecond.
int64_t TimelineBaseNs(const model::Model& model);

// `memory`: its category timeline as counter tracks (memory_tracks.h). `cpu_profile`: the
// AnalysisSet's symbolised CPU samples (without it, the writer symbolises them itself).
bool WriteTraceJson(const model::Model& model, const std::string& path, std::string* error,
                    const analysis::OverlapResult* overlap = nullptr,
                    const analysis::MemoryAnalysis* memory = nullptr,
                    const analysis::CpuProfile* cpu_profile = nullptr,
                    const analysis::CriticalPathResult* critical_path = nullptr);
// The same, with `trace_name` as traceName instead of `path` (a caller that compresses the
// file afterwards names the final file).
bool WriteTraceJson(const model::Model& model, const std::string& path,
                    const std::string& trace_name, std::string* error,
                    const analysis::OverlapResult* overlap = nullptr,
                    const analysis::MemoryAnalysis* memory = nullptr,
                    const analysis::CpuProfile* cpu_profile = nullptr,
                    const analysis::CriticalPathResult* critical_path = nullptr);

}  // namespace aiprof::exporter
