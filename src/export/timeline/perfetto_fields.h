// Field numbers and enum values of Perfetto's protos (perfetto/protos: trace_packet.proto,
// track_event.proto, track_descriptor.proto, process_descriptor.proto,
// thread_descriptor.proto, counter_descriptor.proto, interned_data.proto,
// debug_annotation.proto) that the .pftrace writers use: one list for pftrace.cc and the
// tracks it adds (pftrace_cpu.cc, pftrace_critical_path.cc).
#pragma once

#include <cstdint>

namespace aiprof::exporter::perfetto {

enum : uint32_t {
  kTracePacket = 1,
  kPacketTimestamp = 8,
  kPacketSequenceId = 10,
  kPacketTrackEvent = 11,
  kPacketInternedData = 12,
  kPacketSequenceFlags = 13,
  kPacketTrackDescriptor = 60,
  kInternedCategories = 1,
  kInternedNames = 2,
  kInternedIid = 1,
  kInternedName = 2,
  kEventCategoryIids = 3,
  kEventDebugAnnotations = 4,
  kEventType = 9,
  kEventNameIid = 10,
  kEventTrackUuid = 11,
  kEventCategories = 22,  // plain strings, not interned
  kEventName = 23,
  kEventDoubleCounterValue = 44,
  kEventFlowIds = 47,
  kEventTerminatingFlowIds = 48,
  kTrackUuid = 1,
  kTrackName = 2,
  kTrackProcess = 3,
  kTrackThread = 4,
  kTrackParentUuid = 5,
  kTrackCounter = 8,
  kProcessPid = 1,
  kProcessName = 6,
  kThreadPid = 1,
  kThreadTid = 2,
  kThreadName = 5,
  kAnnotationBool = 2,
  kAnnotationUInt = 3,
  kAnnotationInt = 4,
  kAnnotationDouble = 5,
  kAnnotationString = 6,
  kAnnotationJson = 9,
  kAnnotationName = 10,
};
enum : uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4 };
enum : uint64_t { kIncrementalStateCleared = 1, kNeedsIncrementalState = 2 };

}  // namespace aiprof::exporter::perfetto
