#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "model/clock.h"
#include "model/parser.h"
#include "support/golden_data.h"
#include "support/raw_data_builder.h"

namespace aiprof::model {
namespace {

namespace fs = std::filesystem;
using testing::GoldenRealtime;

class ModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("aiprof_model_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // name → rows, for lookups by name.
  static std::multimap<std::string, uint32_t> SlicesByName(const Model& m) {
    std::multimap<std::string, uint32_t> out;
    for (uint32_t row = 0; row < m.slices.size(); ++row) {
      out.emplace(std::string(m.Str(m.slices.name[row])), row);
    }
    return out;
  }

  fs::path dir_;
};

void ExpectGolden(const Model& m, int64_t tolerance_ns) {
  ASSERT_EQ(m.processes.size(), 1u);
  EXPECT_EQ(m.processes.pid[0], testing::kGoldenPid);
  EXPECT_EQ(m.Str(m.processes.host[0]), "node1");
  EXPECT_EQ(m.Str(m.processes.name[0]), "python3 train.py");
  EXPECT_EQ(m.processes.rank[0], 0);
  ASSERT_EQ(m.slices.size(), 8u);
  std::map<std::string, std::vector<uint32_t>> by_name;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    by_name[std::string(m.Str(m.slices.name[row]))].push_back(row);
  }
  auto check = [&](const std::string& name, size_t index, uint64_t start, uint64_t end,
                   uint32_t tid, uint16_t depth) {
    SCOPED_TRACE(name);
    ASSERT_GT(by_name[name].size(), index);
    uint32_t row = by_name[name][index];
    EXPECT_NEAR(m.slices.ts[row], GoldenRealtime(start), tolerance_ns);
    EXPECT_NEAR(m.slices.end[row], GoldenRealtime(end), tolerance_ns);
    EXPECT_EQ(m.threads.tid[m.ThreadOfSlice(row)], tid);
    EXPECT_EQ(m.slices.depth[row], depth);
  };
  check("ProfilerStep#1", 0, 1000, 2000, 101, 0);
  check("forward", 0, 1100, 1500, 101, 1);
  check("matmul", 0, 1200, 1300, 101, 2);
  check("ProfilerStep#2", 0, 2000, 3000, 101, 0);
  check("forward", 1, 2100, 2400, 101, 1);
  check("matmul", 1, 2150, 2350, 101, 2);
  check("async", 0, 1700, 2500, 101, 0);
  check("load", 0, 2600, 3000, 102, 0);

  uint32_t matmul = by_name["matmul"][0];
  EXPECT_EQ(m.slices.parent[matmul], by_name["forward"][0]);
  uint32_t async = by_name["async"][0];
  EXPECT_TRUE(m.slices.flags[async] & kSliceMovedLane);
  EXPECT_EQ(m.tracks.lane[m.slices.track[async]], 1u);
  EXPECT_TRUE(m.slices.flags[by_name["load"][0]] & kSliceUnclosed);

  ASSERT_EQ(m.instants.size(), 1u);
  EXPECT_EQ(m.Str(m.instants.name[0]), "checkpoint");
  EXPECT_NEAR(m.instants.ts[0], GoldenRealtime(1600), tolerance_ns);
  ASSERT_EQ(m.markers.size(), 7u);  // 5 pushes, 1 mark, 1 start/end range
  for (size_t i = 0; i < m.markers.size(); ++i) {
    if (m.markers.is_instant[i]) {
      EXPECT_EQ(m.Str(m.markers.domain[i]), "train");
      EXPECT_EQ(m.markers.event_type[i], MarkerEventType::kMarker);
    } else if (m.markers.row[i] == async) {
      EXPECT_EQ(m.markers.event_type[i], MarkerEventType::kStartEnd);
      EXPECT_EQ(m.threads.tid[m.markers.end_thread(i)], 102u);
    }
  }
}

TEST_F(ModelTest, GoldenMonotonicClockIsExact) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string());
  Model m = ParseProfDir(prof);
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();
  ExpectGolden(m, 0);
}

TEST_F(ModelTest, GoldenTscClockWithinOneNanosecond) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string(), true);
  ExpectGolden(ParseProfDir(prof), 1);
}

TEST_F(ModelTest, ThreadsStepsCountersDrops) {
  Model m = ParseProfDir(testing::WriteGoldenProfDir(dir_.string()));
  std::map<uint32_t, std::string> names;
  for (size_t t = 0; t < m.threads.size(); ++t) {
    names[m.threads.tid[t]] = std::string(m.Str(m.threads.name[t]));
  }
  EXPECT_EQ(names[101], "main");
  EXPECT_EQ(names[102], "worker");
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps.step[0], 1u);
  EXPECT_EQ(m.steps.ts[0], GoldenRealtime(1000));
  EXPECT_EQ(m.steps.end[1], GoldenRealtime(3000));
  std::vector<double> cpu;
  for (size_t i = 0; i < m.counters.size(); ++i) {
    if (m.Str(m.counter_series.name[m.counters.series[i]]) == "cpu_usage") {
      cpu.push_back(m.counters.value[i]);
    }
  }
  EXPECT_EQ(cpu, (std::vector<double>{50.0, 75.0}));
  ASSERT_EQ(m.drops.size(), 1u);
  EXPECT_EQ(m.drops.count[0], 3u);
  EXPECT_EQ(m.threads.tid[m.drops.thread[0]], 101u);
  EXPECT_EQ(m.drops.total(), 3u);
}

TEST_F(ModelTest, FindProfDirsAcceptsParentAndRejectsForeign) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string());
  std::string error;
  EXPECT_EQ(FindProfDirs(dir_.string(), &error), std::vector<std::string>{prof});
  EXPECT_EQ(FindProfDirs(prof, &error), std::vector<std::string>{prof});
  fs::create_directories(dir_ / "foreign");
  EXPECT_TRUE(FindProfDirs((dir_ / "foreign").string(), &error).empty());
  EXPECT_NE(error.find("no PROF_"), std::string::npos);
  EXPECT_TRUE(FindProfDirs((dir_ / "missing").string(), &error).empty());
  EXPECT_NE(error.find("does not exist"), std::string::npos);
}

TEST_F(ModelTest, CorruptChunkIsSkippedAndReported) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string());
  std::string file = ListRawFiles(prof).at(0);
  Model clean = ParseProfDir(prof);
  // Damage the last Events chunk's payload (the file ends with it).
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file)) - 40);
    f.put('\x7f');
  }
  Model damaged = ParseProfDir(prof);
  ASSERT_EQ(damaged.files.size(), 1u);
  EXPECT_FALSE(damaged.files[0].report.clean());
  EXPECT_GT(damaged.files[0].report.chunks_skipped, 0u);
  EXPECT_LT(damaged.records, clean.records);
  EXPECT_GT(damaged.slices.size(), 0u);
}

TEST_F(ModelTest, TruncatedFileKeepsIntactChunks) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string());
  std::string file = ListRawFiles(prof).at(0);
  fs::resize_file(file, fs::file_size(file) - 20);
  Model m = ParseProfDir(prof);
  EXPECT_TRUE(m.files[0].report.truncated);
  EXPECT_GT(m.slices.size(), 0u);
}

TEST(ClockFitTest, LeastSquaresThroughSamples) {
  std::vector<ClockPoint> points;
  for (uint64_t i = 0; i < 10; ++i) {
    uint64_t ns = 1'000'000'000'000 + i * 1'000'000;
    points.push_back({ns * 5 / 2 + 777, ns, ns + 42});
  }
  ClockFit fit = ClockFit::Fit(points, false, 0);
  EXPECT_NEAR(fit.ns_per_tick(), 0.4, 1e-12);
  EXPECT_NEAR(fit.ToMonotonicNs(static_cast<int64_t>(points[5].ticks)),
              static_cast<int64_t>(points[5].monotonic_raw_ns), 1);
  EXPECT_EQ(fit.realtime_offset_ns(), 42);
}

}  // namespace
}  // namespace aiprof::model

namespace aiprof::model {
namespace {

// Two processes of one host in one PROF_* directory: the merge path (string remapping, one
// realtime offset per host, thread/track/step renumbering).
TEST_F(ModelTest, MergesFilesOfOneHostOnOneTimeline) {
  std::string prof = testing::WriteGoldenProfDir(dir_.string());
  std::string second = prof + "/host/data/aiprof.5000.data";
  {
    // Same host; its samples say realtime − monotonic = kRealtimeOffset + 10 ns, so the host
    // offset is the sample-weighted mean of both files' offsets.
    testing::RawProcessWriter w(
        second, 5000,
        testing::MetadataJson(5000, "node1", false, 0, 1, testing::GoldenRealtime(0), 0));
    uint64_t base = testing::kMonotonicBase;
    w.ClockSync(base, base, static_cast<uint64_t>(testing::GoldenRealtime(0) + 10));
    w.ClockSync(base + 100, base + 100, static_cast<uint64_t>(testing::GoldenRealtime(100) + 10));
    w.ThreadName(7, base, "other");
    w.StepBegin(7, base + 500, 9);
    w.Push(7, base + 600, "only_here");
    w.Pop(7, base + 700);
    w.StepEnd(7, base + 800, 9);
    w.Close();
  }
  Model m = ParseProfDir(prof);
  ASSERT_EQ(m.files.size(), 2u);
  ASSERT_EQ(m.processes.size(), 2u);
  EXPECT_EQ(m.slices.size(), 10u);
  ASSERT_EQ(m.steps.size(), 3u);
  // Golden file: 3 samples at offset +0; second file: 2 samples at +10 → mean +4 ns.
  int64_t offset = 4;
  bool found = false;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (m.Str(m.slices.name[row]) == "only_here") {
      found = true;
      EXPECT_EQ(m.slices.ts[row], testing::GoldenRealtime(600) + offset);
      uint32_t thread = m.ThreadOfSlice(row);
      EXPECT_EQ(m.threads.tid[thread], 7u);
      EXPECT_EQ(m.Str(m.threads.name[thread]), "other");
      EXPECT_EQ(m.processes.pid[m.threads.process[thread]], 5000u);
      EXPECT_EQ(m.slices.depth[row], 1);
      EXPECT_EQ(m.Str(m.slices.name[m.slices.parent[row]]), "ProfilerStep#9");
    }
    if (m.Str(m.slices.name[row]) == "ProfilerStep#1") {
      EXPECT_EQ(m.slices.ts[row], testing::GoldenRealtime(1000) + offset);
    }
  }
  EXPECT_TRUE(found);
  for (size_t i = 0; i < m.steps.size(); ++i) {
    EXPECT_EQ(m.Str(m.slices.name[m.steps.slice[i]]),
              "ProfilerStep#" + std::to_string(m.steps.step[i]));
  }
  EXPECT_EQ(m.markers.size(), 8u);
  EXPECT_EQ(m.drops.total(), 3u);
}

}  // namespace
}  // namespace aiprof::model

namespace aiprof::model {
namespace {

TEST_F(ModelTest, ForeignThreadRecordsAndThreadNamePriority) {
  fs::path prof = dir_ / "PROF_000003_20260101000000000_FOREIGNTHREAD001";
  fs::create_directories(prof / "host" / "data");
  {
    testing::RawProcessWriter w((prof / "host" / "data" / "aiprof.10.data").string(), 10,
                                testing::MetadataJson(10, "h", false, 0, -1, 0, 0));
    w.ClockSync(1000, 1000, 5000);
    auto& records = w.Thread(20);
    uint8_t thread_name = static_cast<uint8_t>(format::RecordKind::kThreadName);
    uint8_t foreign = static_cast<uint8_t>(format::RecordKind::kForeignThread);
    records.Add(thread_name, 1000, 1, w.Intern("kernel-comm"));
    records.Add(thread_name, 1001, 0, w.Intern("program-name"));
    records.Add(thread_name, 1002, 1, w.Intern("kernel-comm-later"));
    records.Add(foreign, 1100, 0, 30);
    w.Mark(20, 1100, "delivered-for-30");
    w.Mark(20, 1200, "own");
    w.Close();
  }
  Model m = ParseProfDir(prof.string());
  std::map<std::string, uint32_t> tid_of;
  for (uint32_t i = 0; i < m.instants.size(); ++i) {
    tid_of[std::string(m.Str(m.instants.name[i]))] =
        m.threads.tid[m.tracks.thread[m.instants.track[i]]];
  }
  EXPECT_EQ(tid_of["delivered-for-30"], 30u);
  EXPECT_EQ(tid_of["own"], 20u);
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    if (m.threads.tid[t] == 20) {
      EXPECT_EQ(m.Str(m.threads.name[t]), "program-name");
    }
  }
  EXPECT_EQ(m.unknown_records, 0u);
}

}  // namespace
}  // namespace aiprof::model
