#include "export/analysis/resource_analysis_files.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/hand_built_model.h"
#include "export/sqlite/analysis_tables.h"
#include "export/timeline/trace_json.h"
#include "model/importer.h"
#include "model/nesting.h"

namespace aiprof::exporter {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<std::string>> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// Steps [0,100000) and [100000,200000) ns on pid 100's main thread, a 30 µs data_wait in
// the first (a loader batch ends inside it), operators on the main thread.
TEST(ResourceAnalysisFiles, DataPreparationAndBreakdownFiles) {
  analysis::testing::HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t loader = b.AddThread(0, 101);
  b.AddStep(main, 1, 0, 100000);
  b.AddStep(main, 2, 100000, 200000);
  b.AddMarkerRange(main, 0, 30000, "data_wait");
  b.AddMarkerRange(loader, 0, 25000, "load_batch");
  b.AddSlice(main, 30000, 90000, "aten::mm", "cpu_op");
  b.AddSlice(main, 100000, 190000, "aten::mm", "cpu_op");
  model::ResolveNesting(b.mutable_model());
  analysis::AnalysisSet set = analysis::RunAnalyses(b.model());

  char pattern[] = "/tmp/aiprof_resource_files_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  std::vector<std::string> written, errors;
  WriteResourceAnalysisFiles(
      b.model(), set, SummaryTarget{dir.string(), "", SummaryFormat::kCsv, &written, &errors});
  EXPECT_TRUE(errors.empty());

  auto prep = ReadCsv(dir / "data_preparation.csv");
  ASSERT_EQ(prep.size(), 3u);
  EXPECT_EQ(prep[0], (std::vector<std::string>{"Step", "Thread Id", "Step Time(us)",
                                               "Data Wait(us)", "Data Wait Ratio", "Waits",
                                               "Loader Busy(us)", "Queue Empty"}));
  EXPECT_EQ(prep[1], (std::vector<std::string>{"1", "100", "100.000", "30.000", "0.3", "1",
                                               "25.000", "yes"}));
  EXPECT_EQ(prep[2],
            (std::vector<std::string>{"2", "100", "100.000", "0.000", "0", "0", "0.000", "no"}));
  auto summary = ReadCsv(dir / "data_preparation_summary.csv");
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[1], (std::vector<std::string>{"wait ranges; loader ranges", "2", "200.000",
                                                  "30.000", "0.15", "1"}));

  // CPU-only: the host process's outermost operators are its "kernels".
  auto temporal = ReadCsv(dir / "temporal_breakdown.csv");
  ASSERT_EQ(temporal.size(), 2u);
  EXPECT_EQ(temporal[1],
            (std::vector<std::string>{"host:100", "framework operators", "10.000", "150.000",
                                      "0.000", "160.000", "6.25", "93.75", "0"}));
  auto idle = ReadCsv(dir / "idle_time_breakdown.csv");
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[1][0], "host:100");
  EXPECT_EQ(idle[1][3], "10.000");  // [90,100) µs
  EXPECT_EQ(idle[1][6], "10.000");  // other: no launch calls, longer than 30 ns
  EXPECT_FALSE(fs::exists(dir / "cuda_launch_statistics.csv"));
  EXPECT_FALSE(fs::exists(dir / "memory_analysis.csv"));
  fs::remove_all(dir);
}

// The same analyses as database rows (ns): DATA_PREPARATION and IDLE_TIME_BREAKDOWN.
TEST(ResourceAnalysisFiles, DatabaseTables) {
  analysis::testing::HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  uint32_t loader = b.AddThread(0, 101);
  b.AddStep(main, 1, 0, 100000);
  b.AddMarkerRange(main, 0, 30000, "data_wait");
  b.AddMarkerRange(loader, 0, 25000, "load_batch");
  b.AddSlice(main, 30000, 90000, "aten::mm", "cpu_op");
  analysis::AnalysisSet set = analysis::RunAnalyses(b.model());
  char pattern[] = "/tmp/aiprof_resource_db_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/analysis.db";
  std::string error;
  ASSERT_TRUE(WriteAnalysisDb(b.model(), set, path, &error)) << error;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto row = [&](const char* sql) {
    sqlite3_stmt* statement = nullptr;
    std::vector<std::string> cells;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &statement, nullptr), SQLITE_OK) << sql;
    if (sqlite3_step(statement) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(statement); ++i) {
        const unsigned char* text = sqlite3_column_text(statement, i);
        cells.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
    }
    sqlite3_finalize(statement);
    return cells;
  };
  EXPECT_EQ(row("SELECT * FROM DATA_PREPARATION"),
            (std::vector<std::string>{"1", "100", "0", "100000", "30000", "1", "25000", "1",
                                      "0"}));  // the last column: the step's loop
  EXPECT_EQ(row("SELECT deviceId, globalPid, input, kernelNs FROM TEMPORAL_BREAKDOWN"),
            (std::vector<std::string>{"-1", "100", "framework operators", "60000"}));
  EXPECT_EQ(row("SELECT COUNT(*) FROM MEMORY_POOL"), std::vector<std::string>{"0"});
  sqlite3_close(db);
  fs::remove_all(pattern);
}

// The memory category timeline reaches the JSON timeline as counter tracks on the pool's
// process: a 400-byte block allocated in "forward" at 1 µs and freed at 5 µs (Activation);
// the per-operator memory reaches it as the operators' arguments.
TEST(ResourceAnalysisFiles, MemoryCategoriesAndOperatorMemoryInTheTimeline) {
  analysis::testing::HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddStep(main, 1, 0, 10000);
  b.AddMarkerRange(main, 0, 3000, "forward");
  b.AddSlice(main, 500, 2000, "aten::linear", "cpu_op");
  b.AddSlice(main, 900, 1500, "aten::addmm", "cpu_op");
  b.AddSlice(main, 2500, 2600, "aten::relu", "cpu_op");
  model::Model& m = b.mutable_model();
  for (auto [ts, bytes] : {std::pair<int64_t, int64_t>{1000, 400}, {5000, -400}}) {
    m.instants.ts.push_back(ts);
    m.instants.track.push_back(main);
    m.instants.name.push_back(m.strings.Intern("[memory]"));
    m.instants.category.push_back(m.strings.Intern("cpu_instant_event"));
    m.instants.args.push_back(model::ArgSetBuilder(&m)
                                  .Int("Device Type", 0)
                                  .Int("Device Id", -1)
                                  .UInt("Addr", 0x20)
                                  .Int("Bytes", bytes)
                                  .Int("Total Allocated", bytes > 0 ? 400 : 0)
                                  .Int("Total Reserved", 1024)
                                  .Commit());
  }
  model::ResolveNesting(m);
  analysis::AnalysisSet set = analysis::RunAnalyses(b.model());
  char pattern[] = "/tmp/aiprof_resource_trace_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/trace.json";
  std::string error;
  ASSERT_TRUE(WriteTraceJson(b.model(), path, &error, &set.overlap, &set.memory)) << error;
  std::ifstream in(path);
  nlohmann::json trace = nlohmann::json::parse(in);
  std::vector<std::pair<double, int64_t>> points;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "C" && event["name"] == "Memory Activation (CPU)") {
      EXPECT_EQ(event["pid"], 100);
      points.emplace_back(event["ts"].get<double>(), event["args"]["value"].get<int64_t>());
    }
  }
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].second, 0);
  EXPECT_EQ(points[0].second, 400);
  EXPECT_DOUBLE_EQ(points[1].first - points[0].first, 4.0);  // µs
  // The memory analysis' per-operator figures are the operators' arguments: aten::addmm
  // allocated the block, aten::linear holds it; aten::relu saw nothing.
  std::map<std::string, nlohmann::json> args;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "X" && event.contains("args")) args[event["name"]] = event["args"];
  }
  EXPECT_EQ(args["aten::addmm"]["CPU Mem (B)"], 400);
  EXPECT_EQ(args["aten::addmm"]["Self CPU Mem (B)"], 400);
  EXPECT_EQ(args["aten::linear"]["CPU Mem (B)"], 400);
  EXPECT_EQ(args["aten::linear"]["Self CPU Mem (B)"], 0);
  // The free came after the operators, in the step record, which is no operator.
  EXPECT_FALSE(args["ProfilerStep#1"].contains("CPU Mem (B)"));
  EXPECT_FALSE(args["aten::addmm"].contains("CUDA Mem (B)"));
  EXPECT_FALSE(args.contains("aten::relu"));
  fs::remove_all(pattern);
}

}  // namespace
}  // namespace aiprof::exporter
