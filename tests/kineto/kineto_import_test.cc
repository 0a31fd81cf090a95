// The Kineto importer on traces written by hand in the shapes libkineto's ChromeTraceLogger,
// the legacy profiler and aiprof's writer produce: every row the model gets (processes,
// devices, threads, slices, instants, counters, flows, identity), exact times, gzip, and the
// usual treatment of malformed and hostile input (what is valid is used, the rest counted).
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <map>
#include <string>

#include "analysis/steps.h"
#include "kineto/trace_files.h"
#include "model/discovery.h"
#include "model/file_importer.h"
#include "model/importers/kineto/event_reader.h"
#include "model/importers/kineto/trace_scanner.h"
#include "model/parser.h"
#include "model/rank_identity.h"

namespace aiprof::model {
namespace {

using testing::TempDir;

constexpr int64_t kBase = 1'700'000'000'000'000'000;

// torch.profiler 2.x on one GPU, as libkineto writes it (pretty-printed, metadata first,
// the bookkeeping "Spans"/"Traces" processes, GPU events on pid = device, tid = stream).
const char* const kKinetoTrace = R"JSON(
{
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045346304,
     "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024,
     "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
     "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
     "sharedMemPerMultiprocessor": 233472, "numSms": 132}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2, "pg_count": 1,
    "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                   "pg_size": 2, "ranks": [0, 1]}], "nccl_version": "2.19.3"},
  "host_name": "node7",
  "trace_id": "A1B2",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 4242, "tid": 4242,
   "ts": 100.000, "dur": 900.000, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": 4242,
   "ts": 110.250, "dur": 50.500,
   "args": {"External id": 2, "Input Dims": [[32, 64], [64, 16]], "Input type": ["float", "float"],
            "Sequence number": 7, "Fwd thread id": 0}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
   "ts": 120.000, "dur": 10.000, "args": {"External id": 2, "cbid": 211, "correlation": 77}},
  {"ph": "s", "id": 77, "pid": 4242, "tid": 4242, "ts": 120.000, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7,
   "ts": 140.000, "dur": 100.000,
   "args": {"External id": 2, "queued": 0, "device": 0, "context": 1, "stream": 7,
            "correlation": 77, "registers per thread": 64, "shared memory": 0,
            "blocks per SM": 0.5, "warps per SM": 4.0, "grid": [64, 1, 1],
            "block": [128, 1, 1], "est. achieved occupancy %": 6}},
  {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 140.000, "cat": "ac2g", "name": "ac2g",
   "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0,
   "tid": 7, "ts": 300.000, "dur": 20.000,
   "args": {"device": 0, "stream": 7, "bytes": 4096, "memory bandwidth (GB/s)": 0.2048}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 4242,
   "tid": 4242, "ts": 115.000,
   "args": {"Device Type": 1, "Device Id": 0, "Addr": 140000, "Bytes": 2048,
            "Total Allocated": 4096, "Total Reserved": 8192}},
  {"ph": "X", "cat": "my_custom_category", "name": "custom thing", "pid": 4242, "tid": 4243,
   "ts": 200, "dur": 5},
  {"ph": "X", "cat": "Trace", "ts": 90.000, "dur": 1000.000, "pid": "Spans",
   "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
  {"name": "process_sort_index", "ph": "M", "ts": 90.000, "pid": "Spans", "tid": 0,
   "args": {"sort_index": 536870912}},
  {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
   "tid": "Trace PyTorch Profiler", "ts": 90.000},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "ts": 0, "pid": 4242, "tid": 0, "args": {"labels": "CPU"}},
  {"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
  {"name": "process_sort_index", "ph": "M", "ts": 0, "pid": 0, "tid": 0,
   "args": {"sort_index": 16777216}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 4242,
   "args": {"name": "thread 4242 (python3)"}},
  {"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1100.000}
  ],
  "traceName": "node7_4242.1700000000000000000.pt.trace.json"
}
)JSON";

std::multimap<std::string, uint32_t> SlicesByName(const Model& m) {
  std::multimap<std::string, uint32_t> out;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    out.emplace(std::string(m.Str(m.slices.name[row])), row);
  }
  return out;
}

const uint64_t* ArgBits(const Model& m, uint32_t set, std::string_view key, ArgType* type) {
  if (set == 0) return nullptr;
  for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
    if (m.Str(m.args.key[i]) == key) {
      *type = m.args.type[i];
      return &m.args.value[i];
    }
  }
  return nullptr;
}

uint32_t OnlySlice(const Model& m, const std::string& name) {
  const auto by_name = SlicesByName(m);
  EXPECT_EQ(by_name.count(name), 1u) << name;
  auto found = by_name.find(name);
  return found == by_name.end() ? kNoRow : found->second;
}

void ExpectKinetoTraceModel(const Model& m) {
  ASSERT_EQ(m.files.size(), 1u);
  const format::ReadReport& report = m.files[0].report;
  EXPECT_TRUE(report.clean()) << report.Summary();
  EXPECT_EQ(report.chunks_read, 20u) << "every event read";
  EXPECT_EQ(m.records, 20u);

  // Processes: the host process and GPU 0; Kineto's bookkeeping joins the host process.
  ASSERT_EQ(m.processes.size(), 2u);
  uint32_t host = kNoRow, gpu = kNoRow;
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    (m.processes.device_id[p] >= 0 ? gpu : host) = p;
  }
  ASSERT_NE(host, kNoRow);
  ASSERT_NE(gpu, kNoRow);
  EXPECT_EQ(m.processes.pid[host], 4242u);
  EXPECT_EQ(m.Str(m.processes.name[host]), "python3");
  EXPECT_EQ(m.Str(m.processes.label[host]), "CPU");
  EXPECT_EQ(m.Str(m.processes.host[host]), "node7");
  EXPECT_EQ(m.processes.rank[host], 1);
  EXPECT_EQ(m.processes.pid[gpu], 0u);
  EXPECT_EQ(m.processes.device_id[gpu], 0);
  EXPECT_EQ(m.Str(m.processes.label[gpu]), "GPU 0");
  EXPECT_EQ(m.processes.sort_index[gpu], 0x1000000);
  EXPECT_EQ(m.processes.rank[gpu], 1);

  // Identity through the one reader (model/rank_identity.h).
  const std::vector<RankIdentity> identities = RankIdentities(m);
  EXPECT_EQ(identities[host].rank, 1);
  EXPECT_EQ(identities[host].world_size, 2);
  EXPECT_EQ(identities[host].backend, "nccl");
  EXPECT_EQ(identities[host].host, "node7");
  ASSERT_EQ(identities[host].groups.size(), 1u);
  EXPECT_EQ(identities[host].groups[0].name, "0");
  EXPECT_EQ(identities[host].groups[0].description, "default_pg");
  EXPECT_EQ(identities[host].groups[0].backend, "nccl");
  EXPECT_EQ(identities[host].groups[0].ranks, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(identities[host].groups[0].group_rank, 1);
  EXPECT_EQ(identities[gpu].rank, 1) << "a device takes its host process's identity";
  EXPECT_NE(m.processes.metadata[host].find("\"user.trace_id\":\"A1B2\""), std::string::npos)
      << m.processes.metadata[host];

  // The device's properties.
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].process, gpu);
  EXPECT_EQ(m.Str(m.devices[0].name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.devices[0].sm_count, 132u);
  EXPECT_EQ(m.devices[0].max_warps_per_sm, 64u);
  EXPECT_EQ(m.devices[0].total_memory, 85045346304u);

  // Slices: exact times (base + µs with three decimals), categories as written, unknown ones
  // kept.
  const uint32_t step = OnlySlice(m, "ProfilerStep#3");
  EXPECT_EQ(m.slices.ts[step], kBase + 100'000);
  EXPECT_EQ(m.slices.end[step], kBase + 1'000'000);
  EXPECT_EQ(m.Str(m.slices.category[step]), "user_annotation");
  const uint32_t mm = OnlySlice(m, "aten::mm");
  EXPECT_EQ(m.slices.ts[mm], kBase + 110'250);
  EXPECT_EQ(m.slices.end[mm], kBase + 160'750);
  EXPECT_EQ(m.slices.parent[mm], step);
  EXPECT_EQ(m.Str(m.slices.category[mm]), "cpu_op");
  ArgType type{};
  const uint64_t* dims = ArgBits(m, m.slices.args[mm], "Input Dims", &type);
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(type, ArgType::kJson);
  EXPECT_EQ(m.Str(static_cast<StringId>(*dims)), "[[32, 64], [64, 16]]");
  const uint64_t* sequence = ArgBits(m, m.slices.args[mm], "Sequence number", &type);
  ASSERT_NE(sequence, nullptr);
  EXPECT_EQ(type, ArgType::kInt);
  EXPECT_EQ(*sequence, 7u);
  const uint32_t launch = OnlySlice(m, "cudaLaunchKernel");
  EXPECT_EQ(m.slices.parent[launch], mm);
  const uint32_t kernel = OnlySlice(m, "volta_sgemm_128x64_nn");
  EXPECT_EQ(m.Str(m.slices.category[kernel]), "kernel");
  EXPECT_EQ(m.ThreadOfSlice(kernel),
            m.ThreadOfSlice(OnlySlice(m, "Memcpy DtoH (Device -> Pageable)")));
  const uint32_t stream = m.ThreadOfSlice(kernel);
  EXPECT_EQ(m.threads.process[stream], gpu);
  EXPECT_EQ(m.threads.tid[stream], 7u);
  const uint64_t* blocks = ArgBits(m, m.slices.args[kernel], "blocks per SM", &type);
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(type, ArgType::kDouble);
  EXPECT_EQ(std::bit_cast<double>(*blocks), 0.5);
  const uint32_t custom = OnlySlice(m, "custom thing");
  EXPECT_EQ(m.Str(m.slices.category[custom]), "my_custom_category");
  EXPECT_EQ(m.threads.tid[m.ThreadOfSlice(custom)], 4243u);
  const uint32_t span = OnlySlice(m, "PyTorch Profiler (0)");
  EXPECT_EQ(m.processes.pid[m.threads.process[m.ThreadOfSlice(span)]], 4242u);
  EXPECT_EQ(m.Str(m.threads.name[m.ThreadOfSlice(span)]), "PyTorch Profiler");

  // Thread names without the writer's "thread N (...)" wrapper.
  EXPECT_EQ(m.Str(m.threads.name[m.ThreadOfSlice(mm)]), "python3");

  // The launch → kernel flow.
  ASSERT_EQ(m.flows.size(), 1u);
  EXPECT_EQ(m.Str(m.flows.category[0]), "ac2g");
  EXPECT_EQ(m.flows.id[0], 77u);
  EXPECT_EQ(m.flows.from_slice[0], launch);
  EXPECT_EQ(m.flows.to_slice[0], kernel);

  // Instants, and the allocator's totals as the torch importer draws them.
  std::map<std::string, int64_t> instants;
  for (uint32_t i = 0; i < m.instants.size(); ++i) {
    instants[std::string(m.Str(m.instants.name[i]))] = m.instants.ts[i];
  }
  EXPECT_EQ(instants["[memory]"], kBase + 115'000);
  EXPECT_EQ(instants["Iteration Start: PyTorch Profiler"], kBase + 90'000);
  EXPECT_EQ(instants["Record Window End"], kBase + 1'100'000);
  std::map<std::string, double> counters;
  for (uint32_t c = 0; c < m.counters.size(); ++c) {
    counters[std::string(m.Str(m.counter_series.name[m.counters.series[c]]))] = m.counters.value[c];
  }
  EXPECT_EQ(counters["Total Allocated (CUDA:0)"], 4096);
  EXPECT_EQ(counters["Total Reserved (CUDA:0)"], 8192);

  // The step finder sees the ProfilerStep range.
  const analysis::StepList steps = analysis::StepsOf(m);
  EXPECT_EQ(steps.source, analysis::StepSource::kProfilerStepRanges);
  ASSERT_EQ(steps.steps.size(), 1u);
  EXPECT_EQ(steps.steps[0].step, 3u);
}

TEST(KinetoImport, KinetoTraceBecomesTheRowsOfTheModel) {
  TempDir dir("kineto_import_rows");
  const auto path = dir.path() / "node7_4242.1700000000000000000.pt.trace.json";
  testing::WriteTextFile(path, kKinetoTrace);
  ASSERT_NE(FileImporterFor(path.string()), nullptr);
  ExpectKinetoTraceModel(ParseFiles({path.string()}));
}

TEST(KinetoImport, GzipIsDecodedOnTheFly) {
  TempDir dir("kineto_import_gzip");
  const auto path = dir.path() / "trace.pt.trace.json.gz";
  testing::WriteGzipFile(path, kKinetoTrace);
  ASSERT_NE(FileImporterFor(path.string()), nullptr);
  ExpectKinetoTraceModel(ParseFiles({path.string()}));
}

// Two ranks' traces in one model (aiprof ui over a folder of them): each keeps its processes
// (its host), times and flows; no clock offset is applied to traces, which are on the epoch.
TEST(KinetoImport, TracesOfTwoRanksMergeIntoOneModel) {
  TempDir dir("kineto_import_merge");
  std::string second = kKinetoTrace;
  const auto replace = [&](std::string_view from, std::string_view to) {
    second.replace(second.find(from), from.size(), to);
  };
  replace("\"node7\"", "\"node8\"");
  replace("\"rank\": 1", "\"rank\": 0");
  const auto a = dir.path() / "rank1.pt.trace.json", b = dir.path() / "rank0.pt.trace.json";
  testing::WriteTextFile(a, kKinetoTrace);
  testing::WriteTextFile(b, second);
  const Model m = ParseFiles({a.string(), b.string()});
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.processes.size(), 4u) << "a host process and a GPU per rank";
  EXPECT_EQ(m.flows.size(), 2u) << "each trace's own flow, ids per file";
  std::map<std::string, int64_t> step_start;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (m.Str(m.slices.name[row]) != "ProfilerStep#3") continue;
    const uint32_t process = m.threads.process[m.ThreadOfSlice(row)];
    step_start[std::string(m.Str(m.processes.host[process]))] = m.slices.ts[row];
  }
  EXPECT_EQ(step_start["node7"], kBase + 100'000);
  EXPECT_EQ(step_start["node8"], kBase + 100'000);
  for (uint32_t f = 0; f < m.flows.size(); ++f) {
    const uint32_t from = m.threads.process[m.ThreadOfSlice(m.flows.from_slice[f])];
    const uint32_t to = m.threads.process[m.ThreadOfSlice(m.flows.to_slice[f])];
    EXPECT_EQ(m.processes.host[from], m.processes.host[to]) << "a flow stays within its trace";
  }
}

// What torch 1.13's export_chrome_trace writes without Kineto: an array, no categories, µs
// from the profiler's start, pid "CPU functions".
TEST(KinetoImport, LegacyProfilerArray) {
  TempDir dir("kineto_import_legacy");
  const auto path = dir.path() / "legacy.json";
  testing::WriteTextFile(
      path,
      R"([{"name": "ProfilerStep#1", "ph": "X", "ts": 203, "dur": 950, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "forward_pass", "ph": "X", "ts": 217, "dur": 464, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "aten::linear", "ph": "X", "ts": 265, "dur": 169, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "aten::t", "ph": "X", "ts": 266, "dur": 7, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "AddmmBackward0", "ph": "X", "ts": 700, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "aten::linear", "ph": "s", "ts": 265, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}])");
  const Model m = ParseFiles({path.string()});
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();
  ASSERT_EQ(m.processes.size(), 1u);
  EXPECT_EQ(m.Str(m.processes.name[0]), "CPU functions");
  EXPECT_EQ(m.processes.device_id[0], -1);
  ASSERT_EQ(m.slices.size(), 5u);
  EXPECT_EQ(m.Str(m.slices.category[OnlySlice(m, "ProfilerStep#1")]), "user_annotation");
  EXPECT_EQ(m.Str(m.slices.category[OnlySlice(m, "forward_pass")]), "user_annotation");
  EXPECT_EQ(m.Str(m.slices.category[OnlySlice(m, "aten::linear")]), "cpu_op");
  // An autograd node has no namespace but is an operator (Kineto writes it as cpu_op).
  EXPECT_EQ(m.Str(m.slices.category[OnlySlice(m, "AddmmBackward0")]), "cpu_op");
  // Relative times: placed to end at the file's modification time, durations exact.
  const uint32_t step = OnlySlice(m, "ProfilerStep#1");
  EXPECT_EQ(m.slices.dur(step), 950'000);
  EXPECT_EQ(m.slices.ts[OnlySlice(m, "aten::t")] - m.slices.ts[step], 63'000);
  EXPECT_GT(m.slices.ts[step], int64_t{1'600'000'000} * 1'000'000'000);
  bool said_relative = false, said_lone_flow = false;
  for (const std::string& note : m.files[0].report.notes) {
    said_relative |= note.find("no absolute time") != std::string::npos;
    said_lone_flow |= note.find("no other end") != std::string::npos;
  }
  EXPECT_TRUE(said_relative);
  EXPECT_TRUE(said_lone_flow) << "the legacy profiler writes flow starts only";
}

// torch_npu's ASCEND_PROFILER_OUTPUT/trace_view.json: an array, times as strings of µs with
// three decimals, the framework layer on process "Python" labelled CPU, ProfilerStep#N as
// cpu_op. Found below its *_ascend_pt folder, read to the nanosecond, its steps found.
TEST(KinetoImport, TorchNpuTraceViewInItsResultFolder) {
  TempDir dir("kineto_import_torch_npu");
  const auto output = dir.path() / "worker_123_20261128101010_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
  std::filesystem::create_directories(output);
  testing::WriteTextFile(
      output / "trace_view.json",
      R"([{"ph": "M", "name": "process_name", "pid": 1001, "tid": 0, "args": {"name": "Python"}}, )"
      R"({"ph": "M", "name": "process_labels", "pid": 1001, "tid": 0, "args": {"labels": "CPU"}}, )"
      R"({"ph": "M", "name": "thread_name", "pid": 1001, "tid": 7, "args": {"name": "Thread 7"}}, )"
      R"({"ph": "X", "name": "ProfilerStep#1", "pid": 1001, "tid": 7, "ts": "1700000000000000.000", "dur": "900.000", "cat": "cpu_op", "args": {}}, )"
      R"({"ph": "X", "name": "aten::addmm", "pid": 1001, "tid": 7, "ts": "1700000000000100.125", "dur": "300.500", "cat": "cpu_op", "args": {"Sequence number": 0, "Input Dims": "[[64], [64, 32], [32, 64]]"}}, )"
      R"({"ph": "X", "name": "ProfilerStep#2", "pid": 1001, "tid": 7, "ts": "1700000000001000.000", "dur": "900.000", "cat": "cpu_op", "args": {}}, )"
      R"({"ph": "X", "name": "aten::relu", "pid": 1001, "tid": 7, "ts": "1700000000001450.250", "dur": "100.250", "cat": "cpu_op", "args": {}}])");
  const InputDiscovery found = DiscoverRuns({dir.path().string()});
  const std::vector<RunInput>& runs = found.runs;
  ASSERT_EQ(runs.size(), 1u) << found.error;
  EXPECT_EQ(runs[0].kind, RunKind::kTrace);
  ASSERT_EQ(runs[0].files.size(), 1u);
  const Model m = ParseFiles(runs[0].files);
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();
  ASSERT_EQ(m.processes.size(), 1u);
  EXPECT_EQ(m.Str(m.processes.name[0]), "Python");
  ASSERT_EQ(m.slices.size(), 4u);
  const uint32_t addmm = OnlySlice(m, "aten::addmm");
  EXPECT_EQ(m.slices.ts[addmm], 1'700'000'000'000'100'125);
  EXPECT_EQ(m.slices.dur(addmm), 300'500);
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps.step[0], 1u);
  EXPECT_EQ(m.steps.step[1], 2u);
}

TEST(KinetoImport, MalformedEventsAreSkippedCountedAndTheRestIsUsed) {
  TempDir dir("kineto_import_malformed");
  const auto path = dir.path() / "broken.json";
  const std::string text =
      "{\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n"
      " {\"ph\": \"X\", \"name\": \"a\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
      "\"dur\": 2},\n"
      " {\"ph\": \"X\", \"name\": \"b\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": "
      "\"oops\", \"dur\": 2},\n"
      " garbage here,\n"
      " {\"ph\": \"X\", \"name\": \"c\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
      "\"dur\": 1},\n"
      " {\"name\": \"no phase\"},\n"
      " {\"ph\": \"X\", \"name\": \"d\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": 7, "
      "\"d";
  testing::WriteTextFile(path, text);
  const Model m = ParseFiles({path.string()});
  ASSERT_EQ(m.files.size(), 1u);
  const format::ReadReport& report = m.files[0].report;
  EXPECT_FALSE(report.clean());
  EXPECT_TRUE(report.truncated);
  EXPECT_EQ(report.chunks_read, 2u) << report.Summary();
  // b (bad ts), "garbage" (an element that is no JSON), " here," (bytes between events),
  // "no phase" and the cut-off d.
  EXPECT_EQ(report.chunks_skipped, 5u) << report.Summary();
  EXPECT_GT(report.bytes_skipped, 0u);
  EXPECT_NE(report.Summary().find("events read"), std::string::npos) << report.Summary();
  const auto by_name = SlicesByName(m);
  EXPECT_EQ(by_name.count("a"), 1u);
  EXPECT_EQ(by_name.count("c"), 1u);
  EXPECT_EQ(m.slices.size(), 2u);
  EXPECT_EQ(m.slices.ts[OnlySlice(m, "c")], kBase + 5'000);
}

TEST(KinetoImport, HostileInputEndsAndIsCounted) {
  TempDir dir("kineto_import_hostile");
  const auto brackets = dir.path() / "brackets.json";
  testing::WriteTextFile(brackets, "[{\"ph\": \"X\"}, " + std::string(1 << 20, '{'));
  const auto quotes = dir.path() / "quotes.json";
  testing::WriteTextFile(quotes, "{\"traceEvents\": [{\"name\": \"" + std::string(1 << 20, '\\'));
  const auto deep = dir.path() / "deep.json";
  testing::WriteTextFile(deep, "{\"traceEvents\": [" + std::string(100000, '[') +
                                   std::string(100000, ']') +
                                   ", {\"ph\": \"i\", \"name\": \"x\", "
                                   "\"pid\": 1, \"tid\": 1, \"ts\": 3}]}");
  const auto binary = dir.path() / "binary.json";
  std::string noise(1 << 16, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919) & 0xff);
  testing::WriteTextFile(binary, "[{\"ph\"" + noise);
  for (const auto& path : {brackets, quotes, deep, binary}) {
    SCOPED_TRACE(path.filename().string());
    const Model m = ParseFiles({path.string()});
    ASSERT_EQ(m.files.size(), 1u);
    EXPECT_FALSE(m.files[0].report.clean());
    EXPECT_GT(m.files[0].report.bytes_skipped, 0u);
  }
  const Model deep_model = ParseFiles({deep.string()});
  EXPECT_EQ(deep_model.instants.size(), 1u) << "the valid event after the deep one is used";
}

TEST(KinetoImport, MicrosAreReadExactly) {
  int64_t ns = 0;
  EXPECT_TRUE(kineto::MicrosToNs("1700000000123456.789", &ns));
  EXPECT_EQ(ns, 1'700'000'000'123'456'789);
  EXPECT_TRUE(kineto::MicrosToNs("12", &ns));
  EXPECT_EQ(ns, 12'000);
  EXPECT_TRUE(kineto::MicrosToNs("0.0015", &ns));
  EXPECT_EQ(ns, 2) << "a fourth decimal rounds";
  EXPECT_TRUE(kineto::MicrosToNs("-3.5", &ns));
  EXPECT_EQ(ns, -3'500);
  EXPECT_TRUE(kineto::MicrosToNs("1.5e3", &ns));
  EXPECT_EQ(ns, 1'500'000);
  EXPECT_FALSE(kineto::MicrosToNs("", &ns));
  EXPECT_FALSE(kineto::MicrosToNs("1.", &ns));
  EXPECT_FALSE(kineto::MicrosToNs("abc", &ns));
  EXPECT_FALSE(kineto::MicrosToNs("99999999999999999999", &ns));
}

// Events cut by every window boundary (a tiny window), escapes at the boundaries, and one
// event larger than the window: the scanner hands each over whole.
TEST(KinetoImport, ScannerKeepsEventsWholeAcrossWindows) {
  TempDir dir("kineto_import_window");
  std::string text = "{\"traceEvents\": [";
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    std::string name = "op \\\"" + std::to_string(i) + "\\\\ {[";
    if (i == 150) name += std::string(5000, 'x');
    names.push_back(name);
    if (i) text += ",\n";
    text += "{\"ph\": \"X\", \"name\": \"" + name +
            "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i) +
            ", \"dur\": 1, \"args\": {\"nested\": {\"a\": [1, {\"b\": \"}\"}]}}}";
  }
  text += "]}";
  const auto path = dir.path() / "window.json";
  testing::WriteTextFile(path, text);

  struct Collect : kineto::TraceScanner::Handler {
    std::vector<std::string> events;
    void OnEvent(std::string_view element, uint64_t) override { events.emplace_back(element); }
    void OnTopLevel(std::string_view, std::string_view, uint64_t) override {}
  } collect;
  FileInput input;
  std::string error;
  ASSERT_TRUE(input.Open(path.string(), &error)) << error;
  kineto::TraceScanner scanner(input, 37);
  const kineto::TraceScanner::Report report = scanner.Scan(collect);
  EXPECT_EQ(report.skipped_bytes, 0u);
  EXPECT_FALSE(report.truncated);
  ASSERT_EQ(collect.events.size(), 300u);
  kineto::EventReader reader;
  for (size_t i = 0; i < collect.events.size(); ++i) {
    std::string padded = collect.events[i] + std::string(kineto::TraceScanner::kPadding, ' ');
    kineto::Event event;
    ASSERT_TRUE(reader.Read(std::string_view(padded.data(), collect.events[i].size()),
                            kineto::TraceScanner::kPadding, &event, &error))
        << error << " in " << collect.events[i];
    std::string expected = names[i];
    // The JSON escapes decoded: \" → ", \\ → \.
    for (size_t at = 0; (at = expected.find('\\', at)) != std::string::npos; ++at) {
      expected.erase(at, 1);
    }
    EXPECT_EQ(event.name, expected);
  }
}

TEST(KinetoImport, SniffsTracesOnly) {
  TempDir dir("kineto_import_sniff");
  const auto info = dir.path() / "info.json";
  testing::WriteTextFile(info, "{\"pid\": 12, \"hostname\": \"h\"}");
  EXPECT_EQ(FileImporterFor(info.string()), nullptr);
  const auto array = dir.path() / "array.json";
  testing::WriteTextFile(array, "[1, 2, 3]");
  EXPECT_EQ(FileImporterFor(array.string()), nullptr);
  const auto trace = dir.path() / "t.json";
  testing::WriteTextFile(trace, "  {\"traceEvents\": []}");
  EXPECT_NE(FileImporterFor(trace.string()), nullptr);
}

}  // namespace
}  // namespace aiprof::model
