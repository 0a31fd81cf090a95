// /api/cpu_profile over a run with real CPU sampling records (on-CPU samples and blocking
// switch-outs, as the cpu_sampling source writes them): the flame graph's values are the
// folded stacks' (what `aiprof export` writes to cpu_stacks.folded / offcpu_stacks.folded).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "analysis/cpu_profile/cpu_profile.h"
#include "dynamic/temp_dir.h"
#include "format/records_cpu.h"
#include "model/parser.h"
#include "server/ui_api.h"
#include "support/golden_data.h"
#include "support/raw_data_builder.h"

namespace aiprof::server {
namespace {

constexpr uint32_t kPid = 10, kTid = 20, kWriterTid = 30, kLoaderTid = 40;

uint8_t Kind(format::CpuRecordKind kind) {
  return static_cast<uint8_t>(kind);
}

// A frame-pointer sample of thread `tid` with the 2 frames `leaf`, `caller`.
void Sample(format::RecordBuffer& records, uint64_t ts, uint64_t leaf, uint64_t caller,
            bool off_cpu, uint32_t tid = kTid) {
  struct {
    format::CpuSampleHeader sample{kPid, 0, 0, 2};
    uint64_t ips[2] = {};
  } record;
  record.sample.tid = tid;
  record.ips[0] = leaf;
  record.ips[1] = caller;
  records.AddWith(Kind(format::CpuRecordKind::kCpuSample), ts,
                  format::kCpuTimeMonotonicRaw | (off_cpu ? format::kCpuSampleOffCpu : 0), 0,
                  record);
}

void Switch(format::RecordBuffer& records, uint64_t ts, bool out) {
  format::CpuSampleHeader sample{kPid, kTid, 0, 0};
  const uint16_t flags = format::kCpuTimeMonotonicRaw | (out ? format::kCpuSwitchOut : 0);
  records.AddWith(Kind(format::CpuRecordKind::kCpuSwitch), ts, flags, 0, sample);
}

std::string WriteSampledRun(const std::string& dir) {
  const std::string prof = dir + "/PROF_000001_20260101000000000_CPUFLAMEGRAPH01";
  std::filesystem::create_directories(prof + "/host/data");
  testing::RawProcessWriter w(prof + "/host/data/aiprof.10.data", kPid,
                              testing::MetadataJson(kPid, "h", false, 0, -1, 0, 0));
  w.ClockSync(1000, 1000, 5000);
  format::RecordBuffer& records = w.Thread(kWriterTid);
  uint64_t ts = 1000;
  for (int i = 0; i < 30; ++i) Sample(records, ts += 10, 0x401000, 0x402000, false);
  for (int i = 0; i < 12; ++i) Sample(records, ts += 10, 0x403000, 0x402000, false);
  // A second thread, on-CPU only.
  for (int i = 0; i < 8; ++i) Sample(records, ts += 10, 0x405000, 0x406000, false, kLoaderTid);
  // Blocked twice, 3 µs each, with a blocking stack.
  for (int i = 0; i < 2; ++i) {
    Switch(records, ts, false);
    Sample(records, ts + 990, 0x404000, 0x402000, true);
    Switch(records, ts += 1000, true);
    ts += 3000;
  }
  Switch(records, ts, false);
  w.Close();
  return prof;
}

uint64_t FoldedTotal(const std::map<std::string, uint64_t>& folded) {
  return std::accumulate(folded.begin(), folded.end(), uint64_t{0},
                         [](uint64_t sum, const auto& entry) { return sum + entry.second; });
}

TEST(CpuProfileApi, TheTreesSumsAreTheFoldedStacksTotals) {
  aiprof::testing::TempDir dir;
  const std::string prof = WriteSampledRun(dir.path());
  UiApi api(model::ParseProfDir(prof), {prof});
  const analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(api.model());
  for (bool off_cpu : {false, true}) {
    const auto folded = analysis::FoldedStacks(api.model(), profile, off_cpu);
    ASSERT_FALSE(folded.empty()) << off_cpu;
    const nlohmann::json graph = nlohmann::json::parse(api.cpu_profile().FlameGraph(off_cpu));
    EXPECT_TRUE(graph["missing"].is_null()) << graph;
    EXPECT_EQ(graph["kind"], off_cpu ? "off" : "on");
    EXPECT_EQ(graph["unit"], off_cpu ? "us" : "samples");
    EXPECT_EQ(graph["total"], FoldedTotal(folded));
    const auto& nodes = graph["nodes"];
    ASSERT_EQ(nodes.size() % 3, 0u);
    ASSERT_GE(nodes.size(), 3u);
    EXPECT_EQ(nodes[1], -1) << "node 0 is the root";
    EXPECT_EQ(nodes[2], FoldedTotal(folded));
    // Each node's value is its children's plus the stacks ending in it: never less.
    std::vector<uint64_t> children(nodes.size() / 3, 0);
    for (size_t i = 3; i < nodes.size(); i += 3) {
      const auto parent = nodes[i + 1].get<size_t>();
      ASSERT_LT(parent, i / 3) << "a parent comes first";
      children[parent] += nodes[i + 2].get<uint64_t>();
    }
    for (size_t n = 0; n < children.size(); ++n) EXPECT_LE(children[n], nodes[n * 3 + 2]);
    EXPECT_EQ(graph["pruned_nodes"], 0) << "no frame is under 0.05% here";
  }
  EXPECT_EQ(nlohmann::json::parse(api.cpu_profile().FlameGraph(false))["total"], 50) << "42 + 8";
  EXPECT_EQ(nlohmann::json::parse(api.cpu_profile().FlameGraph(true))["total"], 6) << "2 × 3 µs";
}

uint32_t ThreadRow(const model::Model& m, uint32_t tid) {
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    if (m.threads.tid[t] == tid) return t;
  }
  ADD_FAILURE() << "no thread " << tid;
  return 0;
}

uint64_t Total(const std::string& graph) {
  return nlohmann::json::parse(graph)["total"].get<uint64_t>();
}

TEST(CpuProfileApi, ThreadsAreListedWithTheirWeightMostSamplesFirst) {
  aiprof::testing::TempDir dir;
  const std::string prof = WriteSampledRun(dir.path());
  UiApi api(model::ParseProfDir(prof), {prof});
  const nlohmann::json threads = nlohmann::json::parse(api.cpu_profile().Threads())["threads"];
  ASSERT_EQ(threads.size(), 2u) << threads << ": the writer thread has no samples";
  EXPECT_EQ(threads[0]["tid"], kTid);
  EXPECT_EQ(threads[0]["thread"], ThreadRow(api.model(), kTid));
  EXPECT_EQ(threads[0]["pid"], kPid);
  EXPECT_EQ(threads[0]["on_samples"], 42);
  EXPECT_EQ(threads[0]["off_us"], 6);
  EXPECT_EQ(threads[1]["tid"], kLoaderTid);
  EXPECT_EQ(threads[1]["on_samples"], 8);
  EXPECT_EQ(threads[1]["off_us"], 0);
}

TEST(CpuProfileApi, AThreadFilterKeepsThoseThreadsSamples) {
  aiprof::testing::TempDir dir;
  const std::string prof = WriteSampledRun(dir.path());
  UiApi api(model::ParseProfDir(prof), {prof});
  const uint32_t main_row = ThreadRow(api.model(), kTid);
  const uint32_t loader_row = ThreadRow(api.model(), kLoaderTid);
  EXPECT_EQ(Total(api.cpu_profile().FlameGraph(false, {{main_row}, {}})), 42);
  EXPECT_EQ(Total(api.cpu_profile().FlameGraph(true, {{main_row}, {}})), 6);
  EXPECT_EQ(Total(api.cpu_profile().FlameGraph(false, {{loader_row}, {}})), 8);
  EXPECT_EQ(Total(api.cpu_profile().FlameGraph(false, {{main_row, loader_row}, {}})), 50);
  EXPECT_EQ(
      Total(api.cpu_profile().FlameGraph(false, {{}, {api.model().threads.process[main_row]}})), 50)
      << "a process selects all its threads";
  // The loader's graph has its own frames only: 8 samples through each of its 2 frames.
  const nlohmann::json loader =
      nlohmann::json::parse(api.cpu_profile().FlameGraph(false, {{loader_row}, {}}));
  EXPECT_EQ(loader["nodes"].size(), 9u) << loader;
  const nlohmann::json blocked =
      nlohmann::json::parse(api.cpu_profile().FlameGraph(true, {{loader_row}, {}}));
  EXPECT_EQ(blocked["total"], 0);
  EXPECT_NE(blocked["missing"].get<std::string>().find("selected threads"), std::string::npos);
  // Every thread's graph is still the one kept.
  EXPECT_EQ(Total(api.cpu_profile().FlameGraph(false)), 50);
}

TEST(CpuProfileApi, RowsNotInTheRunAreRefused) {
  aiprof::testing::TempDir dir;
  const std::string prof = WriteSampledRun(dir.path());
  UiApi api(model::ParseProfDir(prof), {prof});
  const auto threads = static_cast<uint32_t>(api.model().threads.size());
  const auto processes = static_cast<uint32_t>(api.model().processes.size());
  for (const CpuProfileApi::ThreadFilter& bad :
       {CpuProfileApi::ThreadFilter{{threads}, {}}, CpuProfileApi::ThreadFilter{{}, {processes}}}) {
    try {
      api.cpu_profile().FlameGraph(false, bad);
      ADD_FAILURE() << "accepted";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400);
      EXPECT_NE(std::string(e.what()).find("is not a"), std::string::npos) << e.what();
    }
  }
}

TEST(CpuProfileApi, WithoutSamplesItSaysHowToRecordThem) {
  aiprof::testing::TempDir dir;
  const std::string prof = testing::WriteGoldenProfDir(dir.path());
  UiApi api(model::ParseProfDir(prof), {prof});
  for (bool off_cpu : {false, true}) {
    const nlohmann::json graph = nlohmann::json::parse(api.cpu_profile().FlameGraph(off_cpu));
    ASSERT_TRUE(graph["missing"].is_string());
    EXPECT_NE(graph["missing"].get<std::string>().find("--sys-cpu-profiling=on"),
              std::string::npos);
    EXPECT_EQ(graph["total"], 0);
  }
  EXPECT_TRUE(nlohmann::json::parse(api.cpu_profile().Threads())["threads"].empty());
}

}  // namespace
}  // namespace aiprof::server
