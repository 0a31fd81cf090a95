#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "export/export_job.h"
#include "export/timeline/critical_path_track.h"
#include "export/timeline/overlap_tracks.h"
#include "export/timeline/trace_json.h"
#include "export_fixture.h"
#include "model/parser.h"
#include "proto_decoder.h"

namespace aiprof::exporter {
namespace {

using nlohmann::json;
constexpr int64_t kBase = 1'700'000'005'000'000'000;  // golden times floored to the second
constexpr uint32_t kPid = testing::kGoldenPid;
constexpr uint32_t kLane1 = 1u << 23;

class TimelineTest : public ExportFixture {
 protected:
  json Export(const std::string& extra_iteration = "") {
    ExportOptions options;
    options.output = root_.string();
    options.timestamp = "20260101000000";
    options.critical_path = true;  // the timeline's Critical path lane
    if (!extra_iteration.empty()) {
      model::StepRange range;
      std::string error;
      EXPECT_TRUE(model::ParseStepRange(extra_iteration, &range, &error));
      options.iterations = range;
    }
    std::ostringstream out, err;
    ExportResult result = RunExport(options, out, err);
    EXPECT_EQ(result.exit_code, 0) << err.str();
    // Strict parse: throws on anything that is not valid JSON.
    return json::parse(ReadFile(Output("trace_view_20260101000000.json")));
  }
  static int64_t Ns(const json& value) { return std::llround(value.get<double>() * 1000.0); }
};

struct Expected {
  std::string name;
  int64_t ts;  // ns relative to kBase
  int64_t dur;
  uint32_t tid;
  std::string cat;
};

// The golden data's slices as every timeline format must show them.
std::vector<Expected> GoldenSlices() {
  return {
      {"ProfilerStep#1", 1000, 1000, 101, "user_annotation"},
      {"forward", 1100, 400, 101, "user_annotation"},
      {"matmul", 1200, 100, 101, "user_annotation"},
      {"async", 1700, 800, 101 | kLane1, "user_annotation"},
      {"ProfilerStep#2", 2000, 1000, 101, "user_annotation"},
      {"forward", 2100, 300, 101, "user_annotation"},
      {"matmul", 2150, 200, 101, "user_annotation"},
      {"load", 2600, 400, 102, "user_annotation"},
  };
}

// The golden run is CPU-only without framework operators: its marker ranges are the
// compute of the Overlap Analysis process (docs/analysis.md), input waits excepted. Sorted
// by lane name, then start; tid is the lane's index.
std::vector<Expected> GoldenOverlapLanes() {
  return {
      {"Computing", 1100, 400, 0, "overlap_analysis"},
      {"Computing", 1700, 800, 0, "overlap_analysis"},
      {"Computing", 2600, 400, 0, "overlap_analysis"},
      {"Free", 1500, 200, 3, "overlap_analysis"},
      {"Free", 2500, 100, 3, "overlap_analysis"},
  };
}

TEST_F(TimelineTest, EveryEventMatchesTheGoldenData) {
  json trace = Export();
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_TRUE(trace["deviceProperties"].is_array());
  EXPECT_EQ(trace["distributedInfo"]["rank"], 0);
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  EXPECT_EQ(trace["baseTimeNanoseconds"].get<int64_t>(), kBase);
  EXPECT_TRUE(trace["traceName"].is_string());
  EXPECT_EQ(trace["aiprof"]["dropped_events"], 3);

  std::vector<Expected> expected = GoldenSlices();
  std::vector<Expected> got;
  std::map<std::string, std::vector<double>> counters;
  std::vector<std::tuple<std::string, int64_t, uint32_t>> instants;
  // The golden run is CPU-only without framework operators: its marker ranges are the
  // compute of the Overlap Analysis process (docs/analysis.md), input waits excepted.
  std::vector<Expected> lanes;
  const std::vector<Expected> expected_lanes = GoldenOverlapLanes();
  // The critical path lane: each step's path piece by piece, end to end, covering the step.
  std::vector<Expected> path;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "overlap_analysis") {
      EXPECT_EQ(e["pid"], 1u << 30);
      lanes.push_back({e["name"], Ns(e["ts"]), Ns(e["dur"]), e["tid"], e["cat"]});
    } else if (e["ph"] == "X" && e["cat"] == "critical_path") {
      EXPECT_EQ(e["pid"], kCriticalPathPid);
      EXPECT_TRUE(e["args"]["category"].is_string());
      EXPECT_EQ(e["args"]["step"], Ns(e["ts"]) < 2000 ? "1" : "2");
      path.push_back({e["name"], Ns(e["ts"]), Ns(e["dur"]), e["tid"], e["cat"]});
    } else if (e["ph"] == "X") {
      EXPECT_EQ(e["pid"], kPid);
      got.push_back({e["name"], Ns(e["ts"]), Ns(e["dur"]), e["tid"], e["cat"]});
      if (e["name"] == "load") {
        EXPECT_EQ(e["args"]["Unclosed"], 1);
      }
      if (e["name"] == "async") {
        EXPECT_EQ(e["args"]["Overlap lane"], 1);
      }
    } else if (e["ph"] == "C") {
      counters[e["name"]].push_back(e["args"]["value"]);
    } else if (e["ph"] == "i") {
      instants.emplace_back(e["name"], Ns(e["ts"]), e["tid"]);
    }
  }
  auto key = [](const Expected& e) { return std::tie(e.ts, e.name, e.dur, e.tid, e.cat); };
  std::sort(expected.begin(), expected.end(),
            [&](const Expected& a, const Expected& b) { return key(a) < key(b); });
  std::sort(got.begin(), got.end(),
            [&](const Expected& a, const Expected& b) { return key(a) < key(b); });
  std::sort(lanes.begin(), lanes.end(), [&](const Expected& a, const Expected& b) {
    return std::tie(a.name, a.ts) < std::tie(b.name, b.ts);
  });
  std::sort(path.begin(), path.end(),
            [](const Expected& a, const Expected& b) { return a.ts < b.ts; });
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.front().ts, 1000);
  for (size_t i = 1; i < path.size(); ++i) EXPECT_EQ(path[i].ts, path[i - 1].ts + path[i - 1].dur);
  EXPECT_EQ(path.back().ts + path.back().dur, 3000);
  ASSERT_EQ(lanes.size(), expected_lanes.size());
  for (size_t i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(key(lanes[i]), key(expected_lanes[i])) << lanes[i].name << " " << lanes[i].ts;
  }
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(got[i].name, expected[i].name);
    EXPECT_EQ(got[i].ts, expected[i].ts);
    EXPECT_EQ(got[i].dur, expected[i].dur);
    EXPECT_EQ(got[i].tid, expected[i].tid);
    EXPECT_EQ(got[i].cat, expected[i].cat);
  }
  EXPECT_EQ(counters["cpu_usage cpu 0"], (std::vector<double>{50, 75}));
  EXPECT_EQ(counters["Dropped events"], (std::vector<double>{3}));
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0], std::make_tuple(std::string("checkpoint"), int64_t{1600}, 101u));
}

TEST_F(TimelineTest, SchemaRules) {
  json trace = Export();
  std::set<std::tuple<std::string, uint64_t, int64_t>> metadata;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::pair<int64_t, int64_t>>> slices;
  std::set<std::pair<uint64_t, uint64_t>> named_threads;
  for (const json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name"));
    ASSERT_TRUE(e["pid"].is_number_unsigned()) << e.dump();
    EXPECT_LT(e["pid"].get<uint64_t>(), uint64_t{1} << 32);
    if (e.contains("tid")) {
      ASSERT_TRUE(e["tid"].is_number_unsigned()) << e.dump();
      EXPECT_LT(e["tid"].get<uint64_t>(), uint64_t{1} << 32);
    }
    if (e["ph"] == "M") {
      int64_t tid = e.contains("tid") ? e["tid"].get<int64_t>() : -1;
      EXPECT_TRUE(metadata.emplace(e["name"], e["pid"], tid).second)
          << "duplicate M event " << e.dump();
      if (e["name"] == "thread_name") named_threads.emplace(e["pid"], e["tid"]);
    }
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), 0);
      slices[{e["pid"], e["tid"]}].emplace_back(Ns(e["ts"]), Ns(e["ts"]) + Ns(e["dur"]));
    }
  }
  EXPECT_TRUE(metadata.count({"process_name", kPid, -1}));
  EXPECT_TRUE(metadata.count({"process_labels", kPid, -1}));
  EXPECT_TRUE(metadata.count({"process_sort_index", kPid, -1}));
  for (auto& [thread, spans] : slices) {
    EXPECT_TRUE(named_threads.count(thread)) << "thread without thread_name";
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<int64_t> stack;  // ends of open slices
    for (const auto& [start, end] : spans) {
      while (!stack.empty() && stack.back() <= start) stack.pop_back();
      if (!stack.empty()) {
        EXPECT_LE(end, stack.back()) << "slices overlap partially";
      }
      stack.push_back(end);
    }
  }
}

TEST_F(TimelineTest, IterationIdSelectsExactlyThatStep) {
  json trace = Export("2");
  std::multiset<std::string> names;
  for (const json& e : trace["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat == "overlap_analysis" || cat == "critical_path") continue;  // derived lanes

    if (e["ph"] == "X" || e["ph"] == "i") names.insert(e["name"]);
  }
  EXPECT_EQ(names, (std::multiset<std::string>{"ProfilerStep#2", "forward", "matmul", "load"}));
  json both = Export("1-2");
  size_t slices = 0;
  for (const json& e : both["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    slices += e["ph"] == "X" && cat != "overlap_analysis" && cat != "critical_path";
  }
  EXPECT_EQ(slices, 8u);
}

TEST_F(TimelineTest, EscapesAwkwardStrings) {
  model::Model m = model::ParseProfDir(prof_);
  std::string awkward = "quote\" back\\ nl\n tab\t ctl\x01 bad\xff utf8 \xc3\xa9";
  m.slices.name[0] = m.strings.Intern(awkward);
  std::string path = (root_ / "awkward.json").string(), error;
  ASSERT_TRUE(WriteTraceJson(m, path, &error)) << error;
  json trace = json::parse(ReadFile(path));
  bool found = false;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("quote\"", 0) == 0) {
      found = true;
      EXPECT_EQ(e["name"], "quote\" back\\ nl\n tab\t ctl\x01 bad\xef\xbf\xbd utf8 \xc3\xa9");
    }
  }
  EXPECT_TRUE(found);
}

// Metadata a program added as "user.<key>" (the Python API's add_metadata and flags) is a
// top-level key of the trace, as torch.profiler's metadata is in Kineto's; null values and
// keys the trace itself uses are left out; trace_name overrides traceName.
TEST_F(TimelineTest, UserMetadataBecomesTopLevelKeys) {
  model::Model m = model::ParseProfDir(prof_);
  json metadata = json::parse(m.processes.metadata[0].empty() ? "{}" : m.processes.metadata[0]);
  metadata["metadata"]["user.run"] = "export-test";
  metadata["metadata"]["user.sizes"] = {{"batch", 16}};
  metadata["metadata"]["user.with_stack"] = nullptr;
  metadata["metadata"]["user.traceEvents"] = 1;
  metadata["metadata"]["not_user"] = 2;
  m.processes.metadata[0] = metadata.dump();
  std::string path = (root_ / "user_metadata.json").string(), error;
  ASSERT_TRUE(WriteTraceJson(m, path, "final.json.gz", &error)) << error;
  json trace = json::parse(ReadFile(path));
  EXPECT_EQ(trace["run"], "export-test");
  EXPECT_EQ(trace["sizes"], json({{"batch", 16}}));
  EXPECT_FALSE(trace.contains("with_stack"));
  EXPECT_FALSE(trace.contains("not_user"));
  EXPECT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["traceName"], "final.json.gz");
}

// A GPU the collection recorded (the model's device row) is one Kineto deviceProperties
// entry, with Kineto's keys.
TEST_F(TimelineTest, RecordedDevicesBecomeKinetoDeviceProperties) {
  model::Model m = model::ParseProfDir(prof_);
  const uint32_t process = static_cast<uint32_t>(m.processes.size());
  m.processes.pid.push_back(0);
  m.processes.host.push_back(m.processes.host[0]);
  m.processes.name.push_back(m.strings.Intern("GPU 0"));
  m.processes.label.push_back(m.strings.Intern("GPU 0"));
  m.processes.sort_index.push_back(0x1000000);
  m.processes.device_id.push_back(0);
  m.processes.rank.push_back(-1);
  m.processes.metadata.emplace_back();
  model::DeviceProperties device;
  device.process = process;
  device.name = m.strings.Intern("NVIDIA H100 80GB HBM3");
  device.total_memory = 85021163520;
  device.sm_count = 132;
  device.compute_major = 9;
  device.max_warps_per_sm = 64;
  device.warp_size = 32;
  m.devices.push_back(device);
  std::string path = (root_ / "devices.json").string(), error;
  ASSERT_TRUE(WriteTraceJson(m, path, "devices.json", &error)) << error;
  const json properties = json::parse(ReadFile(path))["deviceProperties"];
  ASSERT_EQ(properties.size(), 1u);
  EXPECT_EQ(properties[0]["id"], 0);
  EXPECT_EQ(properties[0]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(properties[0]["totalGlobalMem"], 85021163520);
  EXPECT_EQ(properties[0]["numSms"], 132);
  EXPECT_EQ(properties[0]["computeMajor"], 9);
  EXPECT_EQ(properties[0]["maxThreadsPerMultiprocessor"], 2048);
}

// Field numbers from perfetto/protos/perfetto/trace (trace.proto, trace_packet.proto,
// track_event/track_event.proto, track_descriptor.proto, process_descriptor.proto,
// thread_descriptor.proto, interned_data.proto).
enum : uint32_t {
  kTracePacketField = 1,
  kPacketTimestampField = 8,
  kPacketTrackEventField = 11,
  kPacketInternedDataField = 12,
  kPacketTrackDescriptorField = 60,
  kDescriptorUuidField = 1,
  kDescriptorNameField = 2,
  kDescriptorProcessField = 3,
  kDescriptorThreadField = 4,
  kProcessPidField = 1,
  kThreadPidField = 1,
  kThreadTidField = 2,
  kInternedCategoriesField = 1,
  kInternedNamesField = 2,
  kInternedIidField = 1,
  kInternedNameField = 2,
  kEventCategoryIidsField = 3,
  kEventTypeField = 9,
  kEventNameIidField = 10,
  kEventTrackUuidField = 11,
  kEventDoubleCounterValueField = 44,
};
enum : uint64_t { kTypeSliceBegin = 1, kTypeSliceEnd = 2, kTypeInstant = 3, kTypeCounter = 4 };

TEST_F(TimelineTest, PerfettoTraceHoldsTheModelsEvents) {
  ExportOptions options;
  options.output = prof_;
  options.timestamp = "20260101000000";
  options.timeline_format = TimelineFormat::kPerfetto;
  std::ostringstream out, err;
  ASSERT_EQ(RunExport(options, out, err).exit_code, 0) << err.str();
  std::string bytes = ReadFile(Output("trace_view_20260101000000.pftrace"));
  ASSERT_FALSE(bytes.empty());

  struct Thread {
    uint64_t pid = 0, tid = 0;
  };
  std::map<uint64_t, Thread> threads;              // track uuid → thread
  std::map<uint64_t, std::string> counter_tracks;  // track uuid → name
  std::map<uint64_t, std::string> names, categories;
  struct Open {
    std::string name, category;
    int64_t ts;
  };
  std::map<uint64_t, std::vector<Open>> open;  // per track: begun, not ended
  std::vector<Expected> got, lanes;
  std::map<std::string, std::vector<double>> counters;
  std::vector<std::tuple<std::string, int64_t, uint64_t>> instants;
  size_t packets = 0, process_descriptors = 0;
  for (const ProtoField& packet_field : Decode(bytes)) {
    ASSERT_EQ(packet_field.number, kTracePacketField);
    ASSERT_EQ(packet_field.wire_type, 2u);
    ++packets;
    int64_t timestamp = -1;
    std::string_view event_bytes;
    for (const ProtoField& field : Decode(packet_field.bytes)) {
      if (field.number == kPacketTimestampField) timestamp = static_cast<int64_t>(field.value);
      if (field.number == kPacketTrackEventField) event_bytes = field.bytes;
      if (field.number == kPacketInternedDataField) {
        for (const ProtoField& table : Decode(field.bytes)) {
          uint64_t iid = 0;
          std::string text;
          for (const ProtoField& entry : Decode(table.bytes)) {
            if (entry.number == kInternedIidField) iid = entry.value;
            if (entry.number == kInternedNameField) text = entry.bytes;
          }
          if (table.number == kInternedNamesField) names[iid] = text;
          if (table.number == kInternedCategoriesField) categories[iid] = text;
        }
      }
      if (field.number == kPacketTrackDescriptorField) {
        uint64_t uuid = 0;
        std::string name;
        std::optional<Thread> thread;
        for (const ProtoField& part : Decode(field.bytes)) {
          if (part.number == kDescriptorUuidField) uuid = part.value;
          if (part.number == kDescriptorNameField) name = part.bytes;
          if (part.number == kDescriptorProcessField) {
            ++process_descriptors;
            for (const ProtoField& p : Decode(part.bytes)) {
              if (p.number == kProcessPidField) {
                EXPECT_TRUE(p.value == kPid || p.value == OverlapAnalysisPid(0)) << p.value;
              }
            }
          }
          if (part.number == kDescriptorThreadField) {
            thread = Thread{};
            for (const ProtoField& t : Decode(part.bytes)) {
              if (t.number == kThreadPidField) thread->pid = t.value;
              if (t.number == kThreadTidField) thread->tid = t.value;
            }
          }
        }
        if (thread) threads[uuid] = *thread;
        if (!thread && !name.empty()) counter_tracks[uuid] = name;
      }
    }
    if (event_bytes.empty()) continue;
    ASSERT_GE(timestamp, 0) << "track event without a timestamp";
    uint64_t type = 0, track = 0, name_iid = 0, category_iid = 0;
    double counter_value = 0;
    for (const ProtoField& field : Decode(event_bytes)) {
      if (field.number == kEventTypeField) type = field.value;
      if (field.number == kEventTrackUuidField) track = field.value;
      if (field.number == kEventNameIidField) name_iid = field.value;
      if (field.number == kEventCategoryIidsField) category_iid = field.value;
      if (field.number == kEventDoubleCounterValueField) {
        counter_value = std::bit_cast<double>(field.value);
      }
    }
    const int64_t relative = timestamp - kBase;
    if (type == kTypeSliceBegin) {
      ASSERT_TRUE(threads.count(track)) << "slice on an undeclared track";
      ASSERT_TRUE(names.count(name_iid)) << "name iid " << name_iid << " not interned";
      open[track].push_back({names[name_iid], categories[category_iid], relative});
    } else if (type == kTypeSliceEnd) {
      ASSERT_FALSE(open[track].empty()) << "end without a begin";
      Open begun = open[track].back();
      open[track].pop_back();
      if (threads[track].pid == OverlapAnalysisPid(0)) {
        lanes.push_back({begun.name, begun.ts, relative - begun.ts,
                         static_cast<uint32_t>(threads[track].tid), begun.category});
        continue;
      }
      EXPECT_EQ(threads[track].pid, kPid);
      got.push_back({begun.name, begun.ts, relative - begun.ts,
                     static_cast<uint32_t>(threads[track].tid), begun.category});
    } else if (type == kTypeInstant) {
      instants.emplace_back(names[name_iid], relative, threads[track].tid);
    } else if (type == kTypeCounter) {
      ASSERT_TRUE(counter_tracks.count(track)) << "counter on an undeclared track";
      counters[counter_tracks[track]].push_back(counter_value);
    }
  }
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << "unended slice";

  std::vector<Expected> expected = GoldenSlices();
  auto key = [](const Expected& e) { return std::tie(e.ts, e.name, e.dur, e.tid, e.cat); };
  auto by_key = [&](const Expected& a, const Expected& b) { return key(a) < key(b); };
  std::sort(expected.begin(), expected.end(), by_key);
  std::sort(got.begin(), got.end(), by_key);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(got[i].name, expected[i].name);
    EXPECT_EQ(got[i].ts, expected[i].ts);
    EXPECT_EQ(got[i].dur, expected[i].dur);
    EXPECT_EQ(got[i].tid, expected[i].tid);
    EXPECT_EQ(got[i].cat, expected[i].cat);
  }
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0], std::make_tuple(std::string("checkpoint"), int64_t{1600}, uint64_t{101}));
  bool cpu_series = false;
  for (const auto& [name, values] : counters) {
    if (name.find("cpu_usage") == std::string::npos) continue;
    cpu_series = true;
    EXPECT_EQ(values, (std::vector<double>{50, 75})) << name;
  }
  EXPECT_TRUE(cpu_series);
  // Descriptors (process, threads, counters) plus one packet per begin, end, instant and
  // counter sample: nothing else in the file.
  size_t samples = 0;
  for (const auto& [name, values] : counters) samples += values.size();
  // The Overlap Analysis process (overlap_tracks.h) holds the same lanes as the JSON trace.
  std::sort(lanes.begin(), lanes.end(), [](const Expected& a, const Expected& b) {
    return std::tie(a.name, a.ts) < std::tie(b.name, b.ts);
  });
  const std::vector<Expected> expected_lanes = GoldenOverlapLanes();
  ASSERT_EQ(lanes.size(), expected_lanes.size());
  for (size_t i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(key(lanes[i]), key(expected_lanes[i])) << lanes[i].name << " " << lanes[i].ts;
  }
  EXPECT_EQ(process_descriptors, 2u);  // the app's process and the Overlap Analysis one
  EXPECT_EQ(packets, process_descriptors + threads.size() + counter_tracks.size() +
                         2 * (expected.size() + lanes.size()) + instants.size() + samples);
}

}  // namespace
}  // namespace aiprof::exporter
