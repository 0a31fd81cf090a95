#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "export/export_job.h"
#include "export/timeline/trace_json.h"
#include "export_fixture.h"
#include "model/parser.h"

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

TEST_F(TimelineTest, EveryEventMatchesTheGoldenData) {
  json trace = Export();
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_TRUE(trace["deviceProperties"].is_array());
  EXPECT_EQ(trace["distributedInfo"]["rank"], 0);
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  EXPECT_EQ(trace["baseTimeNanoseconds"].get<int64_t>(), kBase);
  EXPECT_TRUE(trace["traceName"].is_string());
  EXPECT_EQ(trace["aiprof"]["dropped_events"], 3);

  std::vector<Expected> expected = {
      {"ProfilerStep#1", 1000, 1000, 101, "user_annotation"},
      {"forward", 1100, 400, 101, "user_annotation"},
      {"matmul", 1200, 100, 101, "user_annotation"},
      {"async", 1700, 800, 101 | kLane1, "user_annotation"},
      {"ProfilerStep#2", 2000, 1000, 101, "user_annotation"},
      {"forward", 2100, 300, 101, "user_annotation"},
      {"matmul", 2150, 200, 101, "user_annotation"},
      {"load", 2600, 400, 102, "user_annotation"},
  };
  std::vector<Expected> got;
  std::map<std::string, std::vector<double>> counters;
  std::vector<std::tuple<std::string, int64_t, uint32_t>> instants;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X") {
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
    if (e["ph"] == "X" || e["ph"] == "i") names.insert(e["name"]);
  }
  EXPECT_EQ(names, (std::multiset<std::string>{"ProfilerStep#2", "forward", "matmul", "load"}));
  json both = Export("1-2");
  size_t slices = 0;
  for (const json& e : both["traceEvents"]) slices += e["ph"] == "X";
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

// Walks protobuf wire format; false on any malformed field.
bool WalkProto(const std::string& bytes, size_t begin, size_t end, int depth, size_t* fields) {
  size_t i = begin;
  auto varint = [&](uint64_t* value) {
    *value = 0;
    for (int shift = 0; i < end && shift < 64; shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[i++]);
      *value |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  };
  while (i < end) {
    uint64_t tag, value;
    if (!varint(&tag)) return false;
    ++*fields;
    switch (tag & 7) {
      case 0:
        if (!varint(&value)) return false;
        break;
      case 1:
        i += 8;
        break;
      case 2:
        if (!varint(&value) || i + value > end) return false;
        // Only descend into the packet level; deeper bytes may be strings.
        if (depth == 0 && !WalkProto(bytes, i, i + value, 1, fields)) return false;
        i += value;
        break;
      default:
        return false;
    }
  }
  return i == end;
}

TEST_F(TimelineTest, PerfettoTraceIsWellFormed) {
  ExportOptions options;
  options.output = prof_;
  options.timestamp = "20260101000000";
  options.timeline_format = TimelineFormat::kPerfetto;
  std::ostringstream out, err;
  ASSERT_EQ(RunExport(options, out, err).exit_code, 0) << err.str();
  std::string bytes = ReadFile(Output("trace_view_20260101000000.pftrace"));
  ASSERT_FALSE(bytes.empty());
  size_t fields = 0;
  EXPECT_TRUE(WalkProto(bytes, 0, bytes.size(), 0, &fields));
  // 8 slices → 16 begin/end packets, 1 instant, 3 counter samples, descriptors.
  EXPECT_GT(fields, 20u);
  EXPECT_NE(bytes.find("ProfilerStep#1"), std::string::npos);
  EXPECT_NE(bytes.find("thread 101 (main)"), std::string::npos);
}

}  // namespace
}  // namespace aiprof::exporter
