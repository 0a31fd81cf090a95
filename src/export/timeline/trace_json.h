// Writes the model as a Chrome Trace Event / Kineto JSON timeline (trace_view_{ts}.json):
// top-level schemaVersion, deviceProperties, distributedInfo, baseTimeNanoseconds,
// displayTimeUnit, traceEvents, traceName; µs with 3 decimals relative to
// baseTimeNanoseconds; X slices, i markers, C counters (including "Dropped events"),
// s/f flows, and one M event per process/thread name, label and sort index; with an
// overlap result, its "Overlap Analysis" processes (overlap_tracks.h).
#pragma once

#include <string>

#include "analysis/overlap.h"
#include "model/model.h"

namespace aiprof::exporter {

// Whole seconds below the earliest event: relative times stay small enough for doubles to
// hold them to the nanosecond.
int64_t TimelineBaseNs(const model::Model& model);

bool WriteTraceJson(const model::Model& model, const std::string& path, std::string* error,
                    const analysis::OverlapResult* overlap = nullptr);

}  // namespace aiprof::exporter
