// The Perfetto trace's Critical path track (export/timeline/pftrace_critical_path.h), read
// back with the tests' own protobuf decoder: `aiprof export --timeline-format=perfetto
// --critical-path=on` of the golden run has a "Critical path" process with one "Job path"
// thread track whose pieces cover each step end to end, in order, as the JSON timeline's
// lane does; each piece says its category, step, thread and rank. Without the critical path
// there is no such track.
#include <map>
#include <string>
#include <vector>

#include "export/export_job.h"
#include "export/timeline/critical_path_track.h"
#include "export_fixture.h"
#include "proto_decoder.h"

namespace aiprof::exporter {
namespace {

constexpr int64_t kBase = 1'700'000'005'000'000'000;  // golden times floored to the second

// Field numbers from perfetto/protos (trace_packet.proto, track_event.proto,
// track_descriptor.proto, process_descriptor.proto, thread_descriptor.proto,
// debug_annotation.proto).
enum : uint32_t {
  kTracePacket = 1,
  kPacketTimestamp = 8,
  kPacketTrackEvent = 11,
  kPacketTrackDescriptor = 60,
  kDescriptorUuid = 1,
  kDescriptorProcess = 3,
  kDescriptorThread = 4,
  kProcessPid = 1,
  kProcessName = 6,
  kThreadPid = 1,
  kThreadName = 5,
  kEventAnnotations = 4,
  kEventType = 9,
  kEventTrackUuid = 11,
  kEventCategories = 22,
  kEventName = 23,
  kAnnotationString = 6,
  kAnnotationName = 10,
};
enum : uint64_t { kSliceBegin = 1, kSliceEnd = 2 };

struct Piece {
  std::string name, category;
  int64_t begin = 0, end = 0;
  std::map<std::string, std::string> annotations;  // string-valued ones
};

struct CriticalTrack {
  std::string process_name, lane_name;
  std::vector<Piece> pieces;
};

// The track of pid kCriticalPathPid and its slices, in file order.
CriticalTrack ReadCriticalTrack(const std::string& bytes) {
  CriticalTrack out;
  uint64_t lane = 0;
  std::map<uint64_t, Piece> open;  // per track: the piece begun and not ended
  for (const ProtoField& packet : Decode(bytes)) {
    EXPECT_EQ(packet.number, kTracePacket);
    int64_t ts = -1;
    std::string_view event;
    for (const ProtoField& field : Decode(packet.bytes)) {
      if (field.number == kPacketTimestamp) ts = static_cast<int64_t>(field.value) - kBase;
      if (field.number == kPacketTrackEvent) event = field.bytes;
      if (field.number != kPacketTrackDescriptor) continue;
      uint64_t uuid = 0;
      for (const ProtoField& part : Decode(field.bytes)) {
        if (part.number == kDescriptorUuid) uuid = part.value;
        if (part.number != kDescriptorProcess && part.number != kDescriptorThread) continue;
        uint64_t pid = 0;
        std::string name;
        for (const ProtoField& p : Decode(part.bytes)) {
          if (p.number == kProcessPid) pid = p.value;  // kThreadPid has the same number
          if (p.number == (part.number == kDescriptorProcess ? kProcessName : kThreadName)) {
            name = p.bytes;
          }
        }
        if (pid != kCriticalPathPid) continue;
        if (part.number == kDescriptorProcess) {
          out.process_name = name;
        } else {
          out.lane_name = name;
          lane = uuid;
        }
      }
    }
    if (event.empty()) continue;
    uint64_t type = 0, track = 0;
    Piece piece;
    for (const ProtoField& field : Decode(event)) {
      if (field.number == kEventType) type = field.value;
      if (field.number == kEventTrackUuid) track = field.value;
      if (field.number == kEventName) piece.name = field.bytes;
      if (field.number == kEventCategories) piece.category = field.bytes;
      if (field.number != kEventAnnotations) continue;
      std::string key, text;
      for (const ProtoField& a : Decode(field.bytes)) {
        if (a.number == kAnnotationName) key = a.bytes;
        if (a.number == kAnnotationString) text = a.bytes;
      }
      if (!text.empty()) piece.annotations[key] = text;
    }
    if (lane == 0 || track != lane) continue;
    if (type == kSliceBegin) {
      EXPECT_EQ(open.count(track), 0u) << "a piece begun inside another";
      piece.begin = ts;
      open[track] = piece;
    } else if (type == kSliceEnd) {
      EXPECT_EQ(open.count(track), 1u) << "an end without a begin";
      Piece done = open[track];
      open.erase(track);
      done.end = ts;
      out.pieces.push_back(done);
    }
  }
  EXPECT_TRUE(open.empty()) << "an unended piece";
  return out;
}

class PerfettoCriticalPathTest : public ExportFixture {
 protected:
  std::string Export(bool critical_path) {
    ExportOptions options;
    options.output = prof_;
    options.timestamp = "20260101000000";
    options.timeline_format = TimelineFormat::kPerfetto;
    options.critical_path = critical_path;
    std::ostringstream out, err;
    EXPECT_EQ(RunExport(options, out, err).exit_code, 0) << err.str();
    return ReadFile(Output("trace_view_20260101000000.pftrace"));
  }
};

TEST_F(PerfettoCriticalPathTest, TheTrackCoversEachStepEndToEnd) {
  const CriticalTrack track = ReadCriticalTrack(Export(true));
  EXPECT_EQ(track.process_name, kCriticalPathProcessName);
  EXPECT_EQ(track.lane_name, kCriticalPathLaneName);
  ASSERT_FALSE(track.pieces.empty());
  // The golden steps: [1000, 2000) and [2000, 3000) ns after the base.
  EXPECT_EQ(track.pieces.front().begin, 1000);
  EXPECT_EQ(track.pieces.back().end, 3000);
  for (size_t i = 0; i < track.pieces.size(); ++i) {
    const Piece& p = track.pieces[i];
    SCOPED_TRACE(p.name + " at " + std::to_string(p.begin));
    EXPECT_GT(p.end, p.begin);
    if (i > 0) {
      EXPECT_EQ(p.begin, track.pieces[i - 1].end);
    }
    EXPECT_FALSE(p.name.empty());
    EXPECT_EQ(p.category, kCriticalPathCategory);
    EXPECT_FALSE(p.annotations.at("category").empty());
    EXPECT_EQ(p.annotations.at("step"), p.begin < 2000 ? "1" : "2");
    EXPECT_FALSE(p.annotations.at("thread").empty());
  }
}

TEST_F(PerfettoCriticalPathTest, NoTrackWithoutTheCriticalPath) {
  const CriticalTrack track = ReadCriticalTrack(Export(false));
  EXPECT_TRUE(track.process_name.empty());
  EXPECT_TRUE(track.pieces.empty());
}

}  // namespace
}  // namespace aiprof::exporter
