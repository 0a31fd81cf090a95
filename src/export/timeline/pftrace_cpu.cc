#include "export/timeline/pftrace_cpu.h"

#include <string>
#include <vector>

#include "export/timeline/perfetto_fields.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {
namespace {

using namespace perfetto;  // the protos' field numbers (perfetto_fields.h)

uint64_t CpuLaneUuid(uint32_t thread) {
  return (uint64_t{7} << 40) + thread;
}

class CpuLaneWriter {
 public:
  CpuLaneWriter(const model::Model& m, const analysis::CpuProfile& profile, uint64_t sequence_id,
                const std::function<uint64_t(uint32_t)>& process_uuid,
                const std::function<void(const ProtoMessage&)>& emit)
      : m_(m),
        profile_(profile),
        sequence_id_(sequence_id),
        process_uuid_(process_uuid),
        emit_(emit),
        described_(m.threads.size(), 0) {}

  void Write() {
    static constexpr const char* kStateNames[] = {"Running", "Blocked", "Preempted"};
    const model::ThreadStateTable& st = m_.cpu.thread_states;
    for (size_t i = 0; i < st.size(); ++i) {
      uint64_t track = Lane(st.thread[i]);
      ProtoMessage begin;
      begin.Varint(kEventType, kSliceBegin).Varint(kEventTrackUuid, track);
      begin.Bytes(kEventCategories, "thread_state");
      begin.Bytes(kEventName, kStateNames[static_cast<int>(st.state[i])]);
      if (st.stack[i] != UINT32_MAX) Annotate(begin, "Blocked in", StackText(st.stack[i]));
      Event(st.ts[i], begin);
      ProtoMessage end;
      end.Varint(kEventType, kSliceEnd).Varint(kEventTrackUuid, track);
      Event(st.end[i], end);
    }
    const model::CpuSampleTable& s = m_.cpu.samples;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.flags[i] & format::kCpuSampleOffCpu) continue;
      auto stack = profile_.Stack(s.stack[i]);
      ProtoMessage instant;
      instant.Varint(kEventType, kInstant).Varint(kEventTrackUuid, Lane(s.thread[i]));
      instant.Bytes(kEventCategories, "cpu_sample");
      instant.Bytes(kEventName, stack.empty() ? std::string_view("[unknown]")
                                              : std::string_view(profile_.function_name[stack[0]]));
      Annotate(instant, "Stack", StackText(s.stack[i]));
      Event(s.ts[i], instant);
    }
  }

 private:
  uint64_t Lane(uint32_t thread) {
    uint64_t uuid = CpuLaneUuid(thread);
    if (described_[thread]) return uuid;
    described_[thread] = 1;
    std::string name(m_.Str(m_.threads.name[thread]));
    if (name.empty()) name = "thread " + std::to_string(m_.threads.tid[thread]);
    ProtoMessage track, packet;
    track.Varint(kTrackUuid, uuid).Bytes(kTrackName, name + " (CPU)");
    track.Varint(kTrackParentUuid, process_uuid_(m_.threads.process[thread]));
    packet.Varint(kPacketSequenceId, sequence_id_).Message(kPacketTrackDescriptor, track);
    emit_(packet);
    return uuid;
  }

  std::string StackText(uint32_t stack) const {
    std::string text;
    for (uint32_t f : profile_.Stack(stack)) {
      if (!text.empty()) text += '\n';
      text += profile_.function_name[f];
    }
    return text;
  }

  static void Annotate(ProtoMessage& event, std::string_view name, std::string_view value) {
    ProtoMessage annotation;
    annotation.Bytes(kAnnotationName, name).Bytes(kAnnotationString, value);
    event.Message(kEventDebugAnnotations, annotation);
  }

  void Event(int64_t ts, const ProtoMessage& event) {
    ProtoMessage packet;
    packet.Varint(kPacketTimestamp, static_cast<uint64_t>(ts));
    packet.Message(kPacketTrackEvent, event).Varint(kPacketSequenceId, sequence_id_);
    emit_(packet);
  }

  const model::Model& m_;
  const analysis::CpuProfile& profile_;
  uint64_t sequence_id_;
  const std::function<uint64_t(uint32_t)>& process_uuid_;
  const std::function<void(const ProtoMessage&)>& emit_;
  std::vector<uint8_t> described_;
};

}  // namespace

void WritePerfettoCpuLanes(const model::Model& m, const analysis::CpuProfile& profile,
                           uint64_t sequence_id,
                           const std::function<uint64_t(uint32_t)>& process_uuid,
                           const std::function<void(const ProtoMessage&)>& emit) {
  CpuLaneWriter(m, profile, sequence_id, process_uuid, emit).Write();
}

}  // namespace aiprof::exporter
