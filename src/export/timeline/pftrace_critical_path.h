// The critical path track of the Perfetto trace (pftrace.cc), as the JSON timeline has its
// lane (critical_path_track.h): a process "Critical path" with one thread track "Job path"
// holding each step's path piece by piece: an operator's, kernel's or wait's self time under
// its name, a gap or an edge's latency under its category; debug annotations give the
// category, the step, the thread or stream and the rank. Names are sent as plain strings,
// so they never collide with the trace's interned ids.
#pragma once

#include <cstdint>
#include <functional>

#include "analysis/critical_path/critical_path.h"
#include "export/timeline/proto_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

// Nothing when the critical path was not computed or has no step. `emit` gets each
// TracePacket's body; `sequence_id` is the writer's packet sequence.
void WritePerfettoCriticalPath(const model::Model& m, const analysis::CriticalPathResult& r,
                               uint64_t sequence_id,
                               const std::function<void(const ProtoMessage&)>& emit);

}  // namespace aiprof::exporter
