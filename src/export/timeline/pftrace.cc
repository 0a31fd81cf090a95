#include "export/timeline/pftrace.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "export/text_writer.h"
#include "export/timeline/memory_tracks.h"
#include "export/timeline/overlap_tracks.h"
#include "export/timeline/perfetto_fields.h"
#include "export/timeline/pftrace_cpu.h"
#include "export/timeline/pftrace_critical_path.h"
#include "export/timeline/proto_writer.h"
#include "export/timeline/track_ids.h"

namespace aiprof::exporter {
namespace {

using namespace perfetto;  // the protos' field numbers (perfetto_fields.h)

constexpr uint64_t kSequenceId = 1;

uint64_t ProcessUuid(uint32_t row) {
  return (uint64_t{1} << 40) + row;
}
uint64_t TrackUuid(uint32_t row) {
  return (uint64_t{2} << 40) + row;
}
uint64_t CounterUuid(uint32_t row) {
  return (uint64_t{3} << 40) + row;
}
uint64_t OverlapProcessUuid(uint32_t scope) {
  return (uint64_t{4} << 40) + scope;
}
uint64_t OverlapLaneUuid(uint32_t scope, uint32_t lane) {
  return (uint64_t{5} << 40) + uint64_t{scope} * analysis::kOverlapLaneCount + lane;
}
uint64_t MemoryCategoryUuid(size_t track) {
  return (uint64_t{6} << 40) + track;
}

class PerfettoWriter {
 public:
  PerfettoWriter(const model::Model& m, TextWriter& out, const analysis::OverlapResult* overlap,
                 const analysis::MemoryAnalysis* memory, const analysis::CpuProfile* cpu_profile,
                 const analysis::CriticalPathResult* critical_path)
      : m_(m),
        out_(out),
        overlap_(overlap),
        memory_(memory),
        cpu_profile_(cpu_profile),
        critical_path_(critical_path),
        ids_(ComputeTimelineIds(m)),
        name_emitted_(m.strings.size(), 0) {}

  void Write() {
    WriteDescriptors();
    for (size_t i = 0; i < m_.flows.size(); ++i) {
      flows_out_.emplace(m_.flows.from_slice[i], m_.flows.id[i]);
      flows_in_.emplace(m_.flows.to_slice[i], m_.flows.id[i]);
    }
    WriteSlices();
    WriteInstants();
    WriteCounters();
    WriteOverlapLanes();
    WriteCpuLanes();
    if (critical_path_ != nullptr) {
      WritePerfettoCriticalPath(m_, *critical_path_, kSequenceId,
                                [this](const ProtoMessage& packet) { EmitPacket(packet); });
    }
  }

 private:
  void EmitPacket(const ProtoMessage& packet) {
    ProtoMessage wrapper;
    wrapper.Message(kTracePacket, packet);
    out_.Raw(wrapper.bytes());
  }

  void WriteDescriptors() {
    bool first = true;
    auto descriptor = [&](const ProtoMessage& track) {
      ProtoMessage packet;
      packet.Varint(kPacketSequenceId, kSequenceId).Message(kPacketTrackDescriptor, track);
      if (first) packet.Varint(kPacketSequenceFlags, kIncrementalStateCleared);
      first = false;
      EmitPacket(packet);
    };
    for (uint32_t p = 0; p < m_.processes.size(); ++p) {
      ProtoMessage process, track;
      process.Int(kProcessPid, static_cast<int32_t>(ids_.process_pid[p]));
      process.Bytes(kProcessName, m_.Str(m_.processes.name[p]));
      track.Varint(kTrackUuid, ProcessUuid(p)).Message(kTrackProcess, process);
      descriptor(track);
    }
    for (uint32_t t = 0; t < m_.tracks.size(); ++t) {
      ProtoMessage thread, track;
      uint32_t process = ids_.track_process[t];
      thread.Int(kThreadPid, static_cast<int32_t>(ids_.process_pid[process]));
      thread.Int(kThreadTid, static_cast<int32_t>(ids_.track_tid[t]));
      thread.Bytes(kThreadName, TrackDisplayName(m_, t));
      track.Varint(kTrackUuid, TrackUuid(t)).Varint(kTrackParentUuid, ProcessUuid(process));
      track.Message(kTrackThread, thread);
      descriptor(track);
    }
    for (uint32_t s = 0; s < m_.counter_series.size(); ++s) {
      ProtoMessage track, counter;
      track.Varint(kTrackUuid, CounterUuid(s));
      track.Varint(kTrackParentUuid, ProcessUuid(m_.counter_series.process[s]));
      track.Bytes(kTrackName, CounterDisplayName(m_, s)).Message(kTrackCounter, counter);
      descriptor(track);
    }
    for (size_t i = 0; memory_ != nullptr && i < memory_->category_tracks.size(); ++i) {
      const analysis::MemoryCategoryTrack& category = memory_->category_tracks[i];
      ProtoMessage track, counter;
      track.Varint(kTrackUuid, MemoryCategoryUuid(i));
      track.Varint(kTrackParentUuid, ProcessUuid(memory_->pools[category.pool].process));
      track.Bytes(kTrackName, MemoryCategoryTrackName(*memory_, category));
      track.Message(kTrackCounter, counter);
      descriptor(track);
    }
    for (uint32_t scope = 0; overlap_ != nullptr && scope < overlap_->scopes.size(); ++scope) {
      ProtoMessage process, track;
      uint32_t pid = OverlapAnalysisPid(scope);
      process.Int(kProcessPid, static_cast<int32_t>(pid));
      process.Bytes(kProcessName, std::string(kOverlapProcessName) + " (" +
                                      OverlapAnalysisLabel(m_, overlap_->scopes[scope]) + ")");
      track.Varint(kTrackUuid, OverlapProcessUuid(scope)).Message(kTrackProcess, process);
      descriptor(track);
      for (uint32_t lane = 0; lane < analysis::kOverlapLaneCount; ++lane) {
        ProtoMessage thread, lane_track;
        thread.Int(kThreadPid, static_cast<int32_t>(pid));
        thread.Int(kThreadTid, static_cast<int32_t>(lane));
        thread.Bytes(kThreadName,
                     analysis::OverlapLaneName(static_cast<analysis::OverlapLane>(lane)));
        lane_track.Varint(kTrackUuid, OverlapLaneUuid(scope, lane));
        lane_track.Varint(kTrackParentUuid, OverlapProcessUuid(scope));
        lane_track.Message(kTrackThread, thread);
        descriptor(lane_track);
      }
    }
  }

  // Adds interned-data entries for strings not yet sent on the sequence.
  void Intern(model::StringId name, model::StringId category, ProtoMessage& packet) {
    ProtoMessage interned;
    auto add = [&](model::StringId id, uint32_t field, uint8_t bit) {
      if (name_emitted_[id] & bit) return;
      name_emitted_[id] |= bit;
      ProtoMessage entry;
      entry.Varint(kInternedIid, uint64_t{id} + 1).Bytes(kInternedName, m_.Str(id));
      interned.Message(field, entry);
    };
    add(name, kInternedNames, 1);
    add(category, kInternedCategories, 2);
    if (!interned.empty()) packet.Message(kPacketInternedData, interned);
  }

  void Annotations(uint32_t set, uint8_t flags, ProtoMessage& event) {
    const model::ArgTable& a = m_.args;
    for (uint32_t i = set ? a.set_begin[set] : 0; set && i < a.set_begin[set + 1]; ++i) {
      ProtoMessage annotation;
      annotation.Bytes(kAnnotationName, m_.Str(a.key[i]));
      switch (a.type[i]) {
        case model::ArgType::kInt:
          annotation.Int(kAnnotationInt, static_cast<int64_t>(a.value[i]));
          break;
        case model::ArgType::kUInt:
          annotation.Varint(kAnnotationUInt, a.value[i]);
          break;
        case model::ArgType::kDouble:
          annotation.Double(kAnnotationDouble, std::bit_cast<double>(a.value[i]));
          break;
        case model::ArgType::kString:
          annotation.Bytes(kAnnotationString, m_.Str(static_cast<model::StringId>(a.value[i])));
          break;
        case model::ArgType::kJson:
          annotation.Bytes(kAnnotationJson, m_.Str(static_cast<model::StringId>(a.value[i])));
          break;
      }
      event.Message(kEventDebugAnnotations, annotation);
    }
    if (flags & model::kSliceUnclosed) {
      ProtoMessage annotation;
      annotation.Bytes(kAnnotationName, "Unclosed").Varint(kAnnotationBool, 1);
      event.Message(kEventDebugAnnotations, annotation);
    }
  }

  void Begin(uint32_t row) {
    const model::SliceTable& s = m_.slices;
    ProtoMessage packet, event;
    packet.Varint(kPacketTimestamp, static_cast<uint64_t>(s.ts[row]));
    Intern(s.name[row], s.category[row], packet);
    event.Varint(kEventType, kSliceBegin).Varint(kEventTrackUuid, TrackUuid(s.track[row]));
    event.Varint(kEventNameIid, uint64_t{s.name[row]} + 1);
    event.Varint(kEventCategoryIids, uint64_t{s.category[row]} + 1);
    auto [out_begin, out_end] = flows_out_.equal_range(row);
    for (auto it = out_begin; it != out_end; ++it) event.Fixed64(kEventFlowIds, it->second);
    auto [in_begin, in_end] = flows_in_.equal_range(row);
    for (auto it = in_begin; it != in_end; ++it) {
      event.Fixed64(kEventTerminatingFlowIds, it->second);
    }
    Annotations(s.args[row], s.flags[row], event);
    packet.Message(kPacketTrackEvent, event);
    packet.Varint(kPacketSequenceId, kSequenceId)
        .Varint(kPacketSequenceFlags, kNeedsIncrementalState);
    EmitPacket(packet);
  }

  void End(uint32_t row) {
    ProtoMessage packet, event;
    packet.Varint(kPacketTimestamp, static_cast<uint64_t>(m_.slices.end[row]));
    event.Varint(kEventType, kSliceEnd).Varint(kEventTrackUuid, TrackUuid(m_.slices.track[row]));
    packet.Message(kPacketTrackEvent, event);
    packet.Varint(kPacketSequenceId, kSequenceId)
        .Varint(kPacketSequenceFlags, kNeedsIncrementalState);
    EmitPacket(packet);
  }

  // Per track, begins and ends in stack order (tracks nest; see model/nesting.h).
  void WriteSlices() {
    const model::SliceTable& s = m_.slices;
    std::vector<uint32_t> order(s.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (s.track[a] != s.track[b]) return s.track[a] < s.track[b];
      if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
      if (s.end[a] != s.end[b]) return s.end[a] > s.end[b];
      return a < b;
    });
    std::vector<uint32_t> stack;
    for (size_t i = 0; i < order.size(); ++i) {
      uint32_t row = order[i];
      if (i > 0 && s.track[order[i - 1]] != s.track[row]) {
        while (!stack.empty()) End(stack.back()), stack.pop_back();
      }
      while (!stack.empty() && s.end[stack.back()] <= s.ts[row])
        End(stack.back()), stack.pop_back();
      Begin(row);
      stack.push_back(row);
    }
    while (!stack.empty()) End(stack.back()), stack.pop_back();
  }

  void WriteInstants() {
    const model::InstantTable& in = m_.instants;
    for (uint32_t row = 0; row < in.size(); ++row) {
      ProtoMessage packet, event;
      packet.Varint(kPacketTimestamp, static_cast<uint64_t>(in.ts[row]));
      Intern(in.name[row], in.category[row], packet);
      event.Varint(kEventType, kInstant).Varint(kEventTrackUuid, TrackUuid(in.track[row]));
      event.Varint(kEventNameIid, uint64_t{in.name[row]} + 1);
      event.Varint(kEventCategoryIids, uint64_t{in.category[row]} + 1);
      Annotations(in.args[row], 0, event);
      packet.Message(kPacketTrackEvent, event);
      packet.Varint(kPacketSequenceId, kSequenceId)
          .Varint(kPacketSequenceFlags, kNeedsIncrementalState);
      EmitPacket(packet);
    }
  }

  void WriteCounters() {
    const model::CounterTable& c = m_.counters;
    for (size_t i = 0; i < c.size(); ++i) {
      ProtoMessage packet, event;
      packet.Varint(kPacketTimestamp, static_cast<uint64_t>(c.ts[i]));
      event.Varint(kEventType, kCounter).Varint(kEventTrackUuid, CounterUuid(c.series[i]));
      event.Double(kEventDoubleCounterValue, c.value[i]);
      packet.Message(kPacketTrackEvent, event);
      packet.Varint(kPacketSequenceId, kSequenceId);
      EmitPacket(packet);
    }
    for (size_t i = 0; memory_ != nullptr && i < memory_->category_tracks.size(); ++i) {
      for (const auto& [ts, bytes] : memory_->category_tracks[i].points) {
        ProtoMessage packet, event;
        packet.Varint(kPacketTimestamp, static_cast<uint64_t>(ts));
        event.Varint(kEventType, kCounter).Varint(kEventTrackUuid, MemoryCategoryUuid(i));
        event.Double(kEventDoubleCounterValue, static_cast<double>(bytes));
        packet.Message(kPacketTrackEvent, event);
        packet.Varint(kPacketSequenceId, kSequenceId);
        EmitPacket(packet);
      }
    }
  }

  // Lane names and the category get interned ids after the model's strings.
  void WriteOverlapLanes() {
    if (overlap_ == nullptr || overlap_->scopes.empty()) return;
    const uint64_t lane_iid = uint64_t{m_.strings.size()} + 1;
    const uint64_t category_iid = lane_iid + analysis::kOverlapLaneCount;
    bool interned = false;
    for (uint32_t scope = 0; scope < overlap_->scopes.size(); ++scope) {
      analysis::ForEachLaneInterval(
          overlap_->scopes[scope], [&](analysis::OverlapLane lane, analysis::Interval i) {
            uint32_t lane_index = static_cast<uint32_t>(lane);
            for (int end = 0; end < 2; ++end) {
              ProtoMessage packet, event;
              packet.Varint(kPacketTimestamp, static_cast<uint64_t>(end ? i.end : i.begin));
              if (!interned) {
                ProtoMessage names;
                for (uint32_t l = 0; l < analysis::kOverlapLaneCount; ++l) {
                  ProtoMessage entry;
                  entry.Varint(kInternedIid, lane_iid + l);
                  entry.Bytes(kInternedName,
                              analysis::OverlapLaneName(static_cast<analysis::OverlapLane>(l)));
                  names.Message(kInternedNames, entry);
                }
                ProtoMessage category;
                category.Varint(kInternedIid, category_iid).Bytes(kInternedName, kOverlapCategory);
                names.Message(kInternedCategories, category);
                packet.Message(kPacketInternedData, names);
                interned = true;
              }
              event.Varint(kEventType, end ? kSliceEnd : kSliceBegin);
              event.Varint(kEventTrackUuid, OverlapLaneUuid(scope, lane_index));
              if (!end) {
                event.Varint(kEventNameIid, lane_iid + lane_index);
                event.Varint(kEventCategoryIids, category_iid);
              }
              packet.Message(kPacketTrackEvent, event);
              packet.Varint(kPacketSequenceId, kSequenceId)
                  .Varint(kPacketSequenceFlags, kNeedsIncrementalState);
              EmitPacket(packet);
            }
          });
    }
  }

  void WriteCpuLanes() {
    if (m_.cpu.empty()) return;
    analysis::CpuProfile own;
    if (cpu_profile_ == nullptr) own = analysis::SymbolizeCpuProfile(m_);
    WritePerfettoCpuLanes(m_, cpu_profile_ != nullptr ? *cpu_profile_ : own, kSequenceId,
                          ProcessUuid, [this](const ProtoMessage& packet) { EmitPacket(packet); });
  }

  const model::Model& m_;
  TextWriter& out_;
  const analysis::OverlapResult* overlap_;
  const analysis::MemoryAnalysis* memory_;
  const analysis::CpuProfile* cpu_profile_;
  const analysis::CriticalPathResult* critical_path_;
  TimelineIds ids_;
  std::vector<uint8_t> name_emitted_;  // bit 0: event name sent, bit 1: category sent
  std::unordered_multimap<uint32_t, uint64_t> flows_out_, flows_in_;
};

}  // namespace

bool WritePerfettoTrace(const model::Model& model, const std::string& path, std::string* error,
                        const analysis::OverlapResult* overlap,
                        const analysis::MemoryAnalysis* memory,
                        const analysis::CpuProfile* cpu_profile,
                        const analysis::CriticalPathResult* critical_path) {
  TextWriter out;
  if (!out.Open(path, error)) return false;
  PerfettoWriter(model, out, overlap, memory, cpu_profile, critical_path).Write();
  if (!out.Close()) {
    *error = out.error();
    return false;
  }
  return true;
}

}  // namespace aiprof::exporter
