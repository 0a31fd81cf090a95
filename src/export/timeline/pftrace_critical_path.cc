#include "export/timeline/pftrace_critical_path.h"

#include <string>

#include "export/analysis/critical_path_files.h"
#include "export/timeline/critical_path_track.h"
#include "export/timeline/perfetto_fields.h"
#include "model/steps.h"

namespace aiprof::exporter {
namespace {

using namespace perfetto;  // the protos' field numbers (perfetto_fields.h)

constexpr uint64_t kProcessUuid = uint64_t{8} << 40;
constexpr uint64_t kLaneUuid = kProcessUuid + 1;

void Annotate(ProtoMessage& event, std::string_view name, std::string_view text) {
  ProtoMessage annotation;
  annotation.Bytes(kAnnotationName, name).Bytes(kAnnotationString, text);
  event.Message(kEventDebugAnnotations, annotation);
}

void Annotate(ProtoMessage& event, std::string_view name, int64_t value) {
  ProtoMessage annotation;
  annotation.Bytes(kAnnotationName, name).Int(kAnnotationInt, value);
  event.Message(kEventDebugAnnotations, annotation);
}

}  // namespace

void WritePerfettoCriticalPath(const model::Model& m, const analysis::CriticalPathResult& r,
                               uint64_t sequence_id,
                               const std::function<void(const ProtoMessage&)>& emit) {
  if (!r.computed || r.steps.empty()) return;
  const auto packet_of = [&](uint32_t field, const ProtoMessage& body, int64_t ts) {
    ProtoMessage packet;
    if (ts >= 0) packet.Varint(kPacketTimestamp, static_cast<uint64_t>(ts));
    packet.Varint(kPacketSequenceId, sequence_id).Message(field, body);
    emit(packet);
  };
  ProtoMessage process, process_track, thread, lane_track;
  process.Int(kProcessPid, static_cast<int32_t>(kCriticalPathPid));
  process.Bytes(kProcessName, kCriticalPathProcessName);
  process_track.Varint(kTrackUuid, kProcessUuid).Message(kTrackProcess, process);
  packet_of(kPacketTrackDescriptor, process_track, -1);
  thread.Int(kThreadPid, static_cast<int32_t>(kCriticalPathPid)).Int(kThreadTid, 0);
  thread.Bytes(kThreadName, kCriticalPathLaneName);
  lane_track.Varint(kTrackUuid, kLaneUuid).Varint(kTrackParentUuid, kProcessUuid);
  lane_track.Message(kTrackThread, thread);
  packet_of(kPacketTrackDescriptor, lane_track, -1);
  std::string thread_label;
  uint32_t labelled = model::kNoRow;
  for (const analysis::CriticalPathStep& step : r.steps) {
    const std::string step_label =
        r.whole_run ? "all"
                    : model::FormatStepLabel(model::HasSeveralLoops(m), step.loop, step.step);
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const analysis::CriticalPathSegment s = r.Segment(m, step, i);
      if (s.thread != labelled) {
        labelled = s.thread;
        thread_label = CriticalPathThreadLabel(m, s.thread);
      }
      // Each piece ends where the next begins: its end is written before the next's begin.
      ProtoMessage begin, end;
      begin.Varint(kEventType, kSliceBegin).Varint(kEventTrackUuid, kLaneUuid);
      begin.Bytes(kEventCategories, kCriticalPathCategory);
      begin.Bytes(kEventName, s.slice != model::kNoRow ? m.Str(m.slices.name[s.slice])
                                                       : analysis::PathCategoryName(s.category));
      Annotate(begin, "category", analysis::PathCategoryName(s.category));
      Annotate(begin, "step", step_label);
      Annotate(begin, "thread", thread_label);
      Annotate(begin, "rank", s.rank);
      if (s.latency) Annotate(begin, "latency", 1);
      packet_of(kPacketTrackEvent, begin, s.begin_ns);
      end.Varint(kEventType, kSliceEnd).Varint(kEventTrackUuid, kLaneUuid);
      packet_of(kPacketTrackEvent, end, s.end_ns);
    }
  }
}

}  // namespace aiprof::exporter
