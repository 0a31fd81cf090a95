// Communication operations (model/communication.h) and their exports, checked by value:
//   - a generated raw data set as the torch source writes a gloo rank (rank 1 of 4): the
//     backend work ranges become communication ops with sizes from their input shapes,
//     the c10d:: dispatcher ops around them do not; communication_statistic and
//     COMMUNICATION_OP hold the hand-computed figures; the timeline args are Kineto's.
//   - a model with NCCL kernels: kernel names give type and dtype; per-device statistics.
//   - generated raw data with NVTX ranges of domain NCCL: they count only in a process
//     without backend ranges.
#include "model/communication.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/csv/communication_summaries.h"
#include "export/export_job.h"
#include "format/records_torch.h"
#include "model/importer.h"
#include "model/nesting.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof {
namespace {

using format::TorchInputDescriptor;
using format::TorchInputTag;
using format::TorchKind;
using model::CommOpType;

constexpr uint32_t kPid = 888, kMainTid = 11, kGlooTid = 12;
constexpr uint64_t kBase = 1'000'000;
constexpr int64_t kRealtimeOffset = 1'700'000'000'000'000'000;
constexpr uint8_t kFloat = 6, kHalf = 5;
constexpr uint16_t kUserScope = 7;

struct OpBegin {
  format::TorchOpIds ids;
  format::TorchOpThreads threads;
  uint64_t inputs[4];
};
struct OpBeginNoInputs {
  format::TorchOpIds ids;
  format::TorchOpThreads threads;
};

// One gloo rank: rank 1 of a world of 4.
//   main thread: c10d::allreduce_ [100, 150) (enqueue only), gloo:send float[8] [7000, 7300)
//   gloo worker: gloo:all_reduce float[256,4] [200, 2200), gloo:all_reduce float[10]
//                [3000, 4000), gloo:all_gather half[16] [5000, 5500), gloo:barrier
//                [6000, 6100)
// With identity_from_process_group, the environment gave no rank (torch.multiprocessing
// spawn) and the Python package added the process group's "distributed" metadata.
std::string WriteGlooRankProfDir(const std::string& parent,
                                 bool identity_from_process_group = false) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(parent) / "PROF_000001_20260101000000000_COMMUNICATION001";
  fs::create_directories(dir / "host" / "data");
  auto metadata = nlohmann::json::parse(testing::MetadataJson(
      kPid, "node1", false, 0, 1, kRealtimeOffset + kBase, kRealtimeOffset + kBase + 10'000));
  metadata["world_size"] = 4;
  if (identity_from_process_group) {
    metadata["rank"] = nullptr;
    metadata["world_size"] = nullptr;
    metadata["metadata"] = {{"distributed", {{"backend", "gloo"}, {"rank", 1}, {"world_size", 4}}}};
  }
  testing::RawProcessWriter w((dir / "host" / "data" / "aiprof.888.data").string(), kPid,
                              metadata.dump());
  w.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
  const uint8_t begin = format::ToKind(TorchKind::kOpBegin);
  const uint8_t end = format::ToKind(TorchKind::kOpEnd);
  const uint16_t async = kUserScope | format::kTorchOpAsync;
  auto& main = w.Thread(kMainTid);
  auto& gloo = w.Thread(kGlooTid);
  OpBegin enqueue{{1, -1}, {0, 1}, {TorchInputDescriptor(TorchInputTag::kTensorList, 0, 0)}};
  main.AddWith(begin, kBase + 100, 0, w.Intern("c10d::allreduce_"), enqueue);
  main.Add(end, kBase + 150, 0, 1);
  OpBegin large{{2, -1}, {0, 1}, {TorchInputDescriptor(TorchInputTag::kTensor, kFloat, 2), 256, 4}};
  gloo.AddWith(begin, kBase + 200, async, w.Intern("gloo:all_reduce"), large);
  gloo.Add(end, kBase + 2200, kUserScope, 2);
  OpBegin small{{3, -1}, {0, 1}, {TorchInputDescriptor(TorchInputTag::kTensor, kFloat, 1), 10}};
  gloo.AddWith(begin, kBase + 3000, async, w.Intern("gloo:all_reduce"), small);
  gloo.Add(end, kBase + 4000, kUserScope, 3);
  OpBegin gather{{4, -1}, {0, 1}, {TorchInputDescriptor(TorchInputTag::kTensor, kHalf, 1), 16}};
  gloo.AddWith(begin, kBase + 5000, async, w.Intern("gloo:all_gather"), gather);
  gloo.Add(end, kBase + 5500, kUserScope, 4);
  OpBeginNoInputs barrier{{5, -1}, {0, 1}};
  gloo.AddWith(begin, kBase + 6000, async, w.Intern("gloo:barrier"), barrier);
  gloo.Add(end, kBase + 6100, kUserScope, 5);
  OpBegin send{{6, -1}, {0, 1}, {TorchInputDescriptor(TorchInputTag::kTensor, kFloat, 1), 8}};
  main.AddWith(begin, kBase + 7000, async, w.Intern("gloo:send"), send);
  main.Add(end, kBase + 7300, kUserScope, 6);
  w.ClockSync(kBase + 10'000, kBase + 10'000, kRealtimeOffset + kBase + 10'000);
  w.Close();
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::vector<std::string>> CsvRows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    size_t start = 0;
    for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
      cells.push_back(line.substr(start, comma - start));
    }
    cells.push_back(line.substr(start));
    rows.push_back(cells);
  }
  return rows;
}

class GlooRankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/aiprof_communication_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(root_);
    prof_ = WriteGlooRankProfDir(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Export(exporter::ExportType type) {
    exporter::ExportOptions options;
    options.output = prof_;
    options.type = type;
    options.timestamp = "20260101000000";
    std::ostringstream out, err;
    ASSERT_EQ(exporter::RunExport(options, out, err).exit_code, 0) << err.str();
  }

  std::string root_, prof_;
};

TEST_F(GlooRankTest, BackendRangesAreTheOperationsWithSizesFromTheirInputs) {
  const model::Model m = model::ParseProfDir(prof_);
  const auto ops = model::ClassifyCommunication(m).ops;
  ASSERT_EQ(ops.size(), 5u);  // not c10d::allreduce_
  struct Expected {
    const char* name;
    CommOpType type;
    int64_t ts, in, out, bytes;
    const char* dtype;
  };
  const Expected expected[] = {
      {"gloo:all_reduce", CommOpType::kAllReduce, 200, 1024, 1024, 4096, "Float"},
      {"gloo:all_reduce", CommOpType::kAllReduce, 3000, 10, 10, 40, "Float"},
      {"gloo:all_gather", CommOpType::kAllGather, 5000, 16, 64, 128, "Half"},
      {"gloo:barrier", CommOpType::kBarrier, 6000, 0, 0, 0, ""},
      {"gloo:send", CommOpType::kSend, 7000, 8, 8, 32, "Float"},
  };
  std::vector<const model::CommOp*> by_start;
  for (const auto& op : ops) by_start.push_back(&op);
  std::sort(by_start.begin(), by_start.end(),
            [&](auto* a, auto* b) { return m.slices.ts[a->slice] < m.slices.ts[b->slice]; });
  for (size_t i = 0; i < std::size(expected); ++i) {
    const model::CommOp& op = *by_start[i];
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(m.Str(m.slices.name[op.slice]), expected[i].name);
    EXPECT_EQ(m.slices.ts[op.slice], kRealtimeOffset + kBase + expected[i].ts);
    EXPECT_EQ(op.type, expected[i].type);
    EXPECT_EQ(op.in_nelems, expected[i].in);
    EXPECT_EQ(op.out_nelems, expected[i].out);
    EXPECT_EQ(op.bytes, expected[i].bytes);
    EXPECT_EQ(op.dtype, expected[i].dtype);
    EXPECT_EQ(op.backend, "gloo");
    EXPECT_EQ(op.source, model::CommSource::kBackendRange);
    EXPECT_EQ(op.rank, 1);
    EXPECT_EQ(op.group_size, 4);
    EXPECT_EQ(op.device_id, -1);
    EXPECT_EQ(m.Str(m.slices.category[op.slice]), "collective_comm");
  }
  EXPECT_DOUBLE_EQ(model::AlgorithmBandwidthGBps(*by_start[0], 2000), 2.048);
  EXPECT_LT(model::AlgorithmBandwidthGBps(*by_start[3], 100), 0);  // barrier: no bytes
}

// CPU-only: the enqueueing operator [100,150) is the compute; the five collectives
// [200,2200) [3000,4000) [5000,5500) [6000,6100) [7000,7300) (3900 ns) the communication,
// none of it overlapped; Free = [100,7300) − both = 3250 ns. No steps: one row.
TEST_F(GlooRankTest, OverlapAndStepBreakdownOfTheCollectives) {
  Export(exporter::ExportType::kText);
  const std::string analysis = prof_ + "/aiprof_output/analysis/";
  auto overlap = CsvRows(analysis + "overlap_analysis.csv");
  ASSERT_EQ(overlap.size(), 2u);
  EXPECT_EQ(overlap[1], (std::vector<std::string>{"host:888", overlap[1][1],
                                                  "framework operators (cpu_op)", "1", "5", "7.200",
                                                  "0.050", "3.900", "3.900", "0.000", "3.250"}));
  auto steps = CsvRows(analysis + "step_trace_time.csv");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1],
            (std::vector<std::string>{"host:888", "N/A", "0.050", "3.900", "0.000", "3.900",
                                      "3.250", "7.200", "0.000", "3.900", "0.000"}));
}

TEST_F(GlooRankTest, RankAndWorldSizeFromTheProcessGroupWhenTheEnvironmentHadNone) {
  std::filesystem::remove_all(root_);
  const model::Model m = model::ParseProfDir(WriteGlooRankProfDir(root_, true));
  ASSERT_EQ(m.processes.size(), 1u);
  EXPECT_EQ(m.processes.rank[0], 1);
  const auto ops = model::ClassifyCommunication(m).ops;
  ASSERT_EQ(ops.size(), 5u);
  for (const auto& op : ops) {
    EXPECT_EQ(op.rank, 1);
    EXPECT_EQ(op.group_size, 4);
  }
}

TEST_F(GlooRankTest, AnnotationIsIdempotentAndUsesKinetoArgNames) {
  model::Model m = model::ParseProfDir(prof_);
  const size_t args_before = m.args.key.size();
  model::AnnotateCommunication(m);  // ParseProfDir annotated already
  EXPECT_EQ(m.args.key.size(), args_before);

  Export(exporter::ExportType::kText);
  const auto trace =
      nlohmann::json::parse(ReadFile(prof_ + "/aiprof_output/trace_view_20260101000000.json"));
  int collectives = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event.value("name", "") == "c10d::allreduce_") {
      EXPECT_EQ(event["cat"], "cpu_op");
      EXPECT_FALSE(event["args"].contains("Collective name"));
    }
    if (event.value("cat", "") != "collective_comm") continue;
    ++collectives;
    if (event["name"] != "gloo:all_gather") continue;
    const auto& args = event["args"];
    EXPECT_EQ(args["Collective name"], "allgather");
    EXPECT_EQ(args["dtype"], "Half");
    EXPECT_EQ(args["In msg nelems"], 16);
    EXPECT_EQ(args["Out msg nelems"], 64);
    EXPECT_EQ(args["In msg size"], 32);
    EXPECT_EQ(args["Out msg size"], 128);
    EXPECT_EQ(args["Group size"], 4);
    EXPECT_EQ(args["Rank"], 1);
    EXPECT_DOUBLE_EQ(args["algbw (GB/s)"].get<double>(), 128.0 / 500.0);
    EXPECT_EQ(args["Input Dims"], nlohmann::json::parse("[[16]]"));
  }
  EXPECT_EQ(collectives, 5);
}

TEST_F(GlooRankTest, CommunicationStatisticHoldsHandComputedFigures) {
  Export(exporter::ExportType::kText);
  const auto rows = CsvRows(prof_ + "/aiprof_output/communication_statistic_20260101000000.csv");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"Device_id", "OP Type", "Count", "Total Time(us)",
                                      "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)"}));
  // Total communication time 2000 + 1000 + 500 + 100 + 300 = 3900 ns; largest first.
  const std::vector<std::vector<std::string>> expected = {
      {"host", "allreduce", "2", "3.000", "1.000", "1.500", "2.000"},
      {"host", "allgather", "1", "0.500", "0.500", "0.500", "0.500"},
      {"host", "send", "1", "0.300", "0.300", "0.300", "0.300"},
      {"host", "barrier", "1", "0.100", "0.100", "0.100", "0.100"},
  };
  const double ratios[] = {3000.0 / 39, 500.0 / 39, 300.0 / 39, 100.0 / 39};
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(rows[i + 1].size(), 8u);
    EXPECT_EQ(std::vector<std::string>(rows[i + 1].begin(), rows[i + 1].begin() + 7), expected[i]);
    EXPECT_NEAR(std::stod(rows[i + 1][7]), ratios[i], 1e-9) << expected[i][1];
  }
}

TEST_F(GlooRankTest, CommunicationOpTableRowsByValue) {
  Export(exporter::ExportType::kDb);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((prof_ + "/aiprof_20260101000000.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* query = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(
                db,
                "SELECT n.value, c.startNs, c.endNs, t.value, IFNULL(d.value, ''), c.count, "
                "IFNULL(c.outCount, -1), c.bytes, c.deviceId, c.rankSize, c.rankId, s.value, "
                "b.value, IFNULL(c.algBandwidth, -1), c.globalTid, c.opId = a.id, "
                "c.groupName IS NULL "
                "FROM COMMUNICATION_OP c JOIN STRING_IDS n ON n.id = c.opName "
                "JOIN STRING_IDS t ON t.id = c.opType JOIN STRING_IDS s ON s.id = c.source "
                "JOIN STRING_IDS b ON b.id = c.backend LEFT JOIN STRING_IDS d ON "
                "d.id = c.dataType LEFT JOIN API a ON a.id = c.opId ORDER BY c.startNs",
                -1, &query, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  struct Row {
    std::string name;
    int64_t start, end;
    std::string type, dtype;
    int64_t count, out, bytes;
    double algbw;
    uint32_t tid;
  };
  const int64_t t0 = kRealtimeOffset + kBase;
  const std::vector<Row> expected = {
      {"gloo:all_reduce", t0 + 200, t0 + 2200, "allreduce", "Float", 1024, 1024, 4096, 2.048,
       kGlooTid},
      {"gloo:all_reduce", t0 + 3000, t0 + 4000, "allreduce", "Float", 10, 10, 40, 0.04, kGlooTid},
      {"gloo:all_gather", t0 + 5000, t0 + 5500, "allgather", "Half", 16, 64, 128, 0.256, kGlooTid},
      {"gloo:barrier", t0 + 6000, t0 + 6100, "barrier", "", 0, 0, 0, -1, kGlooTid},
      {"gloo:send", t0 + 7000, t0 + 7300, "send", "Float", 8, 8, 32, 32.0 / 300, kMainTid},
  };
  size_t row = 0;
  auto text = [&](int column) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(query, column)));
  };
  while (sqlite3_step(query) == SQLITE_ROW) {
    ASSERT_LT(row, expected.size());
    const Row& e = expected[row++];
    SCOPED_TRACE(e.name + " @" + std::to_string(e.start - t0));
    EXPECT_EQ(text(0), e.name);
    EXPECT_EQ(sqlite3_column_int64(query, 1), e.start);
    EXPECT_EQ(sqlite3_column_int64(query, 2), e.end);
    EXPECT_EQ(text(3), e.type);
    EXPECT_EQ(text(4), e.dtype);
    EXPECT_EQ(sqlite3_column_int64(query, 5), e.count);
    EXPECT_EQ(sqlite3_column_int64(query, 6), e.out);
    EXPECT_EQ(sqlite3_column_int64(query, 7), e.bytes);
    EXPECT_EQ(sqlite3_column_int64(query, 8), -1);  // host
    EXPECT_EQ(sqlite3_column_int64(query, 9), 4);
    EXPECT_EQ(sqlite3_column_int64(query, 10), 1);
    EXPECT_EQ(text(11), "backend");
    EXPECT_EQ(text(12), "gloo");
    EXPECT_NEAR(sqlite3_column_double(query, 13), e.algbw, 1e-12);
    EXPECT_EQ(sqlite3_column_int64(query, 14), (int64_t{kPid} << 32) | e.tid);
    EXPECT_EQ(sqlite3_column_int(query, 15), 1);  // opId is the event id of the API row
    EXPECT_EQ(sqlite3_column_int(query, 16), 1);  // process groups are not recorded
  }
  EXPECT_EQ(row, expected.size());
  sqlite3_finalize(query);
  sqlite3_close(db);
}

// ---- NCCL kernels (model built directly) and NCCL NVTX ranges (generated raw data) ----

void AddProcess(model::Model& m, uint32_t pid, int32_t device, int32_t rank,
                const std::string& metadata) {
  m.processes.pid.push_back(pid);
  m.processes.host.push_back(0);
  m.processes.name.push_back(m.strings.Intern(device >= 0 ? "GPU" : "python"));
  m.processes.label.push_back(0);
  m.processes.sort_index.push_back(pid);
  m.processes.device_id.push_back(device);
  m.processes.rank.push_back(rank);
  m.processes.metadata.push_back(metadata);
}

// Host process (rank 3 of 8) with an nccl:all_reduce work range [400, 900); device 0 with
// NCCL kernels and one compute kernel.
model::Model MakeNcclModel() {
  model::Model m;
  model::ImportContext context(&m);
  AddProcess(m, 50, -1, 3, R"({"rank": 3, "world_size": 8})");
  AddProcess(m, 0, 0, 3, "");
  context.SetProcess(0);
  const uint32_t host_track = context.MainTrack(context.Thread(0, 50));
  context.SetProcess(1);
  const uint32_t stream_track = context.MainTrack(context.Thread(1, 7));
  const model::StringId kernel = m.strings.Intern("kernel");
  context.AddSlice(host_track, 400, 900, m.strings.Intern("nccl:all_reduce"),
                   m.strings.Intern("user_annotation"));
  auto launch = [&](uint64_t ts, uint64_t end, const char* name) {
    context.AddSlice(stream_track, ts, end, m.strings.Intern(name), kernel);
  };
  launch(1000, 3000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  launch(4000, 4500, "ncclKernel_AllGather_RING_LL_Sum_int8_t");
  launch(5000, 5100, "ncclDevKernel_SendRecv");
  launch(6000, 7000, "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL");
  launch(8000, 9000, "void gemm_kernel<float>(int)");
  model::ResolveNesting(m);
  return m;
}

using OpSummary = std::tuple<std::string, std::string, std::string, int32_t, std::string>;

std::vector<OpSummary> Summaries(const model::Model& m) {
  std::vector<OpSummary> got;
  for (const auto& op : model::ClassifyCommunication(m).ops) {
    got.emplace_back(std::string(m.Str(m.slices.name[op.slice])),
                     std::string(model::CommOpTypeName(op.type)),
                     std::string(model::CommSourceName(op.source)), op.device_id, op.dtype);
  }
  std::sort(got.begin(), got.end());
  return got;
}

TEST(NcclCommunication, KernelNamesGiveTypeAndDtype) {
  const model::Model m = MakeNcclModel();
  for (const auto& op : model::ClassifyCommunication(m).ops) {
    EXPECT_EQ(op.rank, 3);
    EXPECT_EQ(op.group_size, 8);  // the device process takes the host's world size
    EXPECT_EQ(op.bytes, model::kCommUnknown);
    EXPECT_EQ(op.backend, "nccl");
  }
  const std::vector<OpSummary> expected = {
      {"nccl:all_reduce", "allreduce", "backend", -1, ""},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "allreduce", "nccl_kernel", 0, "Float"},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "reducescatter", "nccl_kernel", 0,
       "BFloat16"},
      {"ncclDevKernel_SendRecv", "sendrecv", "nccl_kernel", 0, ""},
      {"ncclKernel_AllGather_RING_LL_Sum_int8_t", "allgather", "nccl_kernel", 0, "Char"},
  };
  EXPECT_EQ(Summaries(m), expected);
}

// NCCL's NVTX ranges (domain "NCCL") of a process calling NCCL directly, and of one whose
// framework also recorded the nccl:all_reduce work range.
std::string WriteNcclNvtxProfDir(const std::string& parent, bool with_backend_range) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(parent) / "PROF_000001_20260101000000000_NCCLNVTXRANGES01";
  fs::create_directories(dir / "host" / "data");
  testing::RawProcessWriter w(
      (dir / "host" / "data" / "aiprof.999.data").string(), 999,
      testing::MetadataJson(999, "node1", false, 0, 2, kRealtimeOffset + kBase,
                            kRealtimeOffset + kBase + 10'000));
  w.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
  constexpr uint16_t kNcclDomain = 1;
  w.DomainName(kMainTid, kBase, kNcclDomain, "NCCL");
  w.Push(kMainTid, kBase + 100, "ncclAllReduce", kNcclDomain);
  w.Pop(kMainTid, kBase + 110, kNcclDomain);
  w.Push(kMainTid, kBase + 200, "ncclGroupStart", kNcclDomain);  // moves no data
  w.Pop(kMainTid, kBase + 205, kNcclDomain);
  w.Push(kMainTid, kBase + 300, "ncclReduceScatter", kNcclDomain);
  w.Pop(kMainTid, kBase + 320, kNcclDomain);
  w.Push(kMainTid, kBase + 400, "ncclBroadcast");  // the default domain: a user range
  w.Pop(kMainTid, kBase + 410);
  if (with_backend_range) {
    OpBeginNoInputs work{{9, -1}, {0, 1}};
    auto& t = w.Thread(kGlooTid);
    t.AddWith(format::ToKind(TorchKind::kOpBegin), kBase + 500, kUserScope | format::kTorchOpAsync,
              w.Intern("nccl:all_reduce"), work);
    t.Add(format::ToKind(TorchKind::kOpEnd), kBase + 900, kUserScope, 9);
  }
  w.ClockSync(kBase + 10'000, kBase + 10'000, kRealtimeOffset + kBase + 10'000);
  w.Close();
  return dir.string();
}

TEST_F(GlooRankTest, NcclNvtxRangesCountOnlyWithoutBackendRanges) {
  const std::string direct = WriteNcclNvtxProfDir(root_ + "/direct", false);
  const std::vector<OpSummary> api = {
      {"ncclAllReduce", "allreduce", "nccl_api", -1, ""},
      {"ncclReduceScatter", "reducescatter", "nccl_api", -1, ""},
  };
  EXPECT_EQ(Summaries(model::ParseProfDir(direct)), api);
  const std::string framework = WriteNcclNvtxProfDir(root_ + "/framework", true);
  const std::vector<OpSummary> backend = {{"nccl:all_reduce", "allreduce", "backend", -1, ""}};
  EXPECT_EQ(Summaries(model::ParseProfDir(framework)), backend);
}

TEST(NcclCommunication, StatisticIsPerDeviceWithRatiosWithinEachDevice) {
  const model::Model m = MakeNcclModel();
  const std::string dir = ::testing::TempDir() + "/aiprof_nccl_stat_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::vector<std::string> written, errors;
  exporter::WriteCommunicationStatistic(
      m, {dir, "20260101000000", exporter::SummaryFormat::kCsv, &written, &errors});
  EXPECT_TRUE(errors.empty());
  const auto rows = CsvRows(dir + "/communication_statistic_20260101000000.csv");
  std::filesystem::remove_all(dir);
  // host: nccl:all_reduce 500 ns; device 0: allreduce 2000, reducescatter 1000, allgather
  // 500, sendrecv 100 (3600 ns in all).
  const std::vector<std::vector<std::string>> expected = {
      {"host", "allreduce", "1", "0.500", "0.500", "0.500", "0.500"},
      {"0", "allreduce", "1", "2.000", "2.000", "2.000", "2.000"},
      {"0", "reducescatter", "1", "1.000", "1.000", "1.000", "1.000"},
      {"0", "allgather", "1", "0.500", "0.500", "0.500", "0.500"},
      {"0", "sendrecv", "1", "0.100", "0.100", "0.100", "0.100"},
  };
  const double ratios[] = {100.0, 2000.0 / 36, 1000.0 / 36, 500.0 / 36, 100.0 / 36};
  ASSERT_EQ(rows.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(std::vector<std::string>(rows[i + 1].begin(), rows[i + 1].begin() + 7), expected[i]);
    EXPECT_NEAR(std::stod(rows[i + 1][7]), ratios[i], 1e-9);
  }
}

TEST(NcclCommunication, NoCommunicationNoFile) {
  model::Model m;
  const std::string dir = ::testing::TempDir() + "/aiprof_no_comm_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::vector<std::string> written, errors;
  exporter::WriteCommunicationStatistic(
      m, {dir, "20260101000000", exporter::SummaryFormat::kCsv, &written, &errors});
  EXPECT_TRUE(written.empty());
  EXPECT_FALSE(std::filesystem::exists(dir + "/communication_statistic_20260101000000.csv"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aiprof
