// The CPU sampling lanes of the Perfetto trace (pftrace.cc), as the JSON timeline has them:
// per sampled thread a track "<thread> (CPU)" under its process with its thread states
// (Running / Blocked / Preempted slices from the kernel's switch records; a Blocked one
// carries the stack it blocked in) and one instant per on-CPU sample, named by its leaf
// function, with the whole stack as a debug annotation. Names are sent as plain strings,
// so they never collide with the trace's interned ids.
#pragma once

#include <cstdint>
#include <functional>

#include "analysis/cpu_profile/cpu_profile.h"
#include "export/timeline/proto_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

// `emit` gets each TracePacket's body; `sequence_id` is the writer's packet sequence;
// `process_uuid` the uuid of a process row's track descriptor.
void WritePerfettoCpuLanes(const model::Model& m, const analysis::CpuProfile& profile,
                           uint64_t sequence_id,
                           const std::function<uint64_t(uint32_t)>& process_uuid,
                           const std::function<void(const ProtoMessage&)>& emit);

}  // namespace aiprof::exporter
