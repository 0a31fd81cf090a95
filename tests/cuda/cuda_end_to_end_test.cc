// End to end without a GPU: the CUDA collector driven by the real runtime (libaiprof.so,
// through plugin.h and a registered source, as libaiprof_cuda.so does), fed by the CUPTI
// test double replaying the recorded H100 session; the raw data is then parsed into the
// model with the CUDA importer and checked against what the session launched.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"
#include "aiprof/plugin.h"
#include "analysis/advice/engine.h"
#include "analysis/analysis_set.h"
#include "analysis/critical_path/critical_path.h"
#include "cuda/cuda_driver_test_double.h"
#include "cuda/cupti_test_double.h"
#include "cuda/range_profiler_test_double.h"
#include "cuda/recorded_session.h"
#include "export/analyze_job.h"
#include "export/csv/summaries.h"
#include "export/cuda/cuda_summaries.h"
#include "format/records_cuda.h"
#include "model/parser.h"
#include "sources/cuda/cuda_collector.h"
#include "sources/cuda/kernel_metrics.h"
#include "sources/cuda/stream_range_marker.h"

namespace aiprof::cuda {
namespace {

namespace fs = std::filesystem;
using model::Model;

PluginHost RuntimeHost() {
  return PluginHost{aiprof_now, aiprof_intern, aiprof_emit, aiprof_emit_for_thread};
}

std::optional<uint64_t> UIntArg(const Model& m, uint32_t set, std::string_view key) {
  for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
    if (m.Str(m.args.key[i]) == key) return m.args.value[i];
  }
  return std::nullopt;
}

std::string TextArg(const Model& m, uint32_t set, std::string_view key) {
  auto value = UIntArg(m, set, key);
  return value ? std::string(m.Str(static_cast<model::StringId>(*value))) : "";
}

double DoubleArg(const Model& m, uint32_t set, std::string_view key) {
  auto value = UIntArg(m, set, key);
  return value ? std::bit_cast<double>(*value) : -1;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

using TableWriter = void (*)(const Model&, const exporter::SummaryTarget&, uint64_t);

struct WrittenTable {
  std::vector<std::string> paths, errors;
};

WrittenTable WriteTable(TableWriter write, const Model& m, const fs::path& dir,
                        exporter::SummaryFormat format,
                        uint64_t row_limit = exporter::kCsvRowLimit) {
  WrittenTable table;
  fs::create_directories(dir);
  write(m, exporter::SummaryTarget{dir.string(), "t", format, &table.paths, &table.errors},
        row_limit);
  return table;
}

// The CSV text of one table ("" when the writer wrote no file).
std::string TableCsv(TableWriter write, const Model& m, const fs::path& dir) {
  WrittenTable table = WriteTable(write, m, dir, exporter::SummaryFormat::kCsv);
  EXPECT_TRUE(table.errors.empty());
  return table.paths.size() == 1 ? ReadText(table.paths[0]) : "";
}

class CudaEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    output_ = fs::temp_directory_path() / ("aiprof_cuda_e2e_" + std::to_string(getpid()));
    fs::remove_all(output_);
    ASSERT_EQ(aiprofInit(output_.c_str()), 0) << aiprofLastError();
  }
  void TearDown() override {
    aiprofFinalize();
    fs::remove_all(output_);
  }

  // Runs one window with the session recorded inside an operator; returns the PROF dir.
  std::string Collect(CudaCollector& collector, testing::CuptiTestDouble& cupti,
                      const CUpti_ActivityDevice5& device = testing::H100Device()) {
    static CudaCollector* active = nullptr;
    active = &collector;
    static const aiprof_source source{AIPROF_PLUGIN_ABI_VERSION,
                                      "cuda-test",
                                      [](void*) {
                                        std::string error, warnings;
                                        active->Start(ActivitySelection{.memory = true}, &error,
                                                      &warnings);
                                      },
                                      [](void*) { active->Stop(); },
                                      [](void*) { active->Flush(); },
                                      nullptr,
                                      nullptr};
    std::string error;
    EXPECT_TRUE(collector.Attach(&error)) << error;
    EXPECT_EQ(aiprof_register_source(&source), 0);
    aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
    EXPECT_EQ(aiprofStart(config), 0) << aiprofLastError();
    EXPECT_TRUE(collector.collecting()) << "the runtime started the registered source";
    EXPECT_TRUE(collector.PushExternal(format::kCudaExternalOperator, 4242));
    const uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));
    if (record_) {
      record_(cupti, tid);
    } else {
      session_ = testing::RecordWorkloadSession(cupti, tid, device);
    }
    EXPECT_TRUE(collector.PopExternal(format::kCudaExternalOperator));
    const std::string dir = aiprofCurrentDir();
    EXPECT_EQ(aiprofStop(config), 0) << aiprofLastError();
    aiprofDestroyConfig(config);
    return dir;
  }

  // The cross-stream dependency of RecordEventWaitSession, collected, parsed and solved.
  void ExpectTheEventWaitOnTheCriticalPath(bool sync_ids) {
    testing::CuptiTestDouble cupti;
    CudaCollector collector(cupti.api(), RuntimeHost(), {});
    testing::EventWaitSession session;
    record_ = [&](testing::CuptiTestDouble& double_, uint32_t tid) {
      session = testing::RecordEventWaitSession(double_, tid, sync_ids);
    };
    const std::string dir = Collect(collector, cupti);
    ASSERT_FALSE(dir.empty());
    const Model m = model::ParseProfDir(dir);
    for (const auto& file : m.files) EXPECT_TRUE(file.report.clean()) << file.report.Summary();
    // The wait's cuda_sync slice names what it waits for as Kineto's does.
    int waits = 0;
    for (uint32_t s = 0; s < m.slices.size(); ++s) {
      if (m.Str(m.slices.name[s]) != "Stream Wait Event") continue;
      ++waits;
      EXPECT_EQ(m.Str(m.slices.category[s]), "cuda_sync");
      EXPECT_EQ(UIntArg(m, m.slices.args[s], "wait_on_stream"), testing::kSessionStreamA);
      EXPECT_EQ(UIntArg(m, m.slices.args[s], "wait_on_cuda_event_record_corr_id"),
                session.record_correlation);
      EXPECT_EQ(UIntArg(m, m.slices.args[s], "wait_on_cuda_event_id"), testing::kWaitEventId);
    }
    EXPECT_EQ(waits, 1);
    // The consumer kernel on stream B waited for the producer on stream A: the path runs
    // through both (without the edge it would reach the consumer through its launch).
    const analysis::AnalysisSet set = analysis::RunAnalyses(m, {std::nullopt, true});
    const analysis::CriticalPathResult& path = set.critical_path;
    ASSERT_EQ(path.steps.size(), 1u);
    // (within the clock mapping's rounding of CUPTI time onto the process clock)
    EXPECT_NEAR(static_cast<double>(path.steps[0].attribution[analysis::PathCategory::kCompute]),
                static_cast<double>(session.first_kernel_ns + session.second_kernel_ns), 100);
  }

  fs::path output_;
  testing::RecordedSession session_;
  std::function<void(testing::CuptiTestDouble&, uint32_t)> record_;
};

TEST_F(CudaEndToEnd, SessionArrivesInTheModelOnGpuLanesWithFlowsAndOperators) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const std::string dir = Collect(collector, cupti);
  ASSERT_FALSE(dir.empty());
  const Model m = model::ParseProfDir(dir);
  for (const auto& file : m.files) EXPECT_TRUE(file.report.clean()) << file.report.Summary();

  // One GPU process with a thread per stream.
  uint32_t gpu = model::kNoRow;
  for (uint32_t p = 0; p < m.processes.size(); ++p) {
    if (m.processes.device_id[p] == 0) gpu = p;
  }
  ASSERT_NE(gpu, model::kNoRow);
  EXPECT_EQ(m.Str(m.processes.name[gpu]), "GPU 0 (NVIDIA H100 80GB HBM3)");
  EXPECT_EQ(m.Str(m.processes.label[gpu]), "GPU 0");
  std::map<uint32_t, std::string> streams;
  for (uint32_t t = 0; t < m.threads.size(); ++t) {
    if (m.threads.process[t] == gpu) streams[m.threads.tid[t]] = m.Str(m.threads.name[t]);
  }
  EXPECT_EQ(streams[testing::kSessionStreamA], "stream 13");
  EXPECT_EQ(streams[testing::kSessionStreamB], "stream 14");

  int kernels = 0, copies = 0, runtime_calls = 0;
  for (size_t s = 0; s < m.slices.size(); ++s) {
    const std::string_view category = m.Str(m.slices.category[s]);
    const uint32_t args = m.slices.args[s];
    if (category == "kernel") {
      ++kernels;
      EXPECT_EQ(m.ProcessOfThread(m.ThreadOfSlice(s)), gpu);
      EXPECT_EQ(UIntArg(m, args, "External id"), 4242u) << "attributed to the operator";
      EXPECT_TRUE(UIntArg(m, args, "correlation").has_value());
      if (m.Str(m.slices.name[s]) == "reduce(float const*, float*, int)") {
        EXPECT_NEAR(static_cast<double>(m.slices.dur(s)), 60'000.0, 1'200.0);
        EXPECT_EQ(TextArg(m, args, "grid"), "[1024, 1, 1]");
        EXPECT_EQ(TextArg(m, args, "block"), "[512, 1, 1]");
        EXPECT_EQ(UIntArg(m, args, "registers per thread"), 32u);
        EXPECT_EQ(UIntArg(m, args, "shared memory"), 2048u);
        EXPECT_DOUBLE_EQ(DoubleArg(m, args, "theoretical occupancy %"), 100.0);
        // 1024 blocks over 132 SMs at 16 warps per block.
        EXPECT_NEAR(DoubleArg(m, args, "warps per SM"), 1024.0 / 132 * 16, 1e-6);
      }
    } else if (category == "gpu_memcpy") {
      ++copies;
      EXPECT_EQ(UIntArg(m, args, "bytes"), testing::kSessionCopyBytes);
      if (m.Str(m.slices.name[s]) == "Memcpy HtoD (Pageable -> Device)") {
        // 4 MiB in 350 µs.
        EXPECT_NEAR(DoubleArg(m, args, "memory bandwidth (GB/s)"), 4194304.0 / 350'000, 0.25);
      }
    } else if (category == "cuda_runtime") {
      ++runtime_calls;
      EXPECT_NE(m.ProcessOfThread(m.ThreadOfSlice(s)), gpu);
    }
  }
  EXPECT_EQ(kernels, session_.kernels);
  EXPECT_EQ(copies, session_.memcpys);
  EXPECT_EQ(runtime_calls, session_.runtime_calls);

  // Every device activity has its ac2g flow from the runtime call; the graph launch has two.
  size_t ac2g = 0;
  for (size_t f = 0; f < m.flows.size(); ++f) {
    if (m.Str(m.flows.category[f]) != "ac2g") continue;
    ++ac2g;
    EXPECT_EQ(m.Str(m.slices.category[m.flows.from_slice[f]]), "cuda_runtime");
  }
  EXPECT_EQ(ac2g, static_cast<size_t>(session_.kernels + session_.memcpys + session_.memsets +
                                      session_.syncs));
}

size_t Lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

// The recorded session (CUPTI test double: no GPU here) through the analyses and
// `aiprof analyze`: a CUDA run whose compute is the device's tasks.
// aiprof's own CUDA runs get the cross-stream edges Kineto traces get from cuda_sync events:
// matched by CUPTI's cudaEventSyncId (CUDA 12.8+) ...
TEST_F(CudaEndToEnd, AStreamWaitEventPutsBothStreamsOnTheCriticalPath) {
  ExpectTheEventWaitOnTheCriticalPath(true);
}

// ... or, without sync ids, by the event's last cudaEventRecord call before the wait.
TEST_F(CudaEndToEnd, AStreamWaitEventWithoutSyncIdsWaitsForTheEventsLastRecord) {
  ExpectTheEventWaitOnTheCriticalPath(false);
}

TEST_F(CudaEndToEnd, AnalysesTakeTheDeviceTasksAsCompute) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const std::string dir = Collect(collector, cupti);
  ASSERT_FALSE(dir.empty());
  const Model m = model::ParseProfDir(dir);
  const analysis::AnalysisSet set = analysis::RunAnalyses(m);
  EXPECT_TRUE(set.inputs.device_run);
  EXPECT_EQ(set.inputs.compute, analysis::ComputeInput::kDeviceTasks);
  ASSERT_EQ(set.overlap.scopes.size(), 1u);
  const analysis::OverlapScope& gpu = set.overlap.scopes[0];
  EXPECT_EQ(gpu.device_id, 0);
  EXPECT_EQ(gpu.compute_tasks,
            static_cast<uint64_t>(session_.kernels + session_.memcpys + session_.memsets));
  // Computing = the union of the device tasks, counted here point by point over the
  // distinct boundaries instead of by merging.
  std::vector<std::pair<int64_t, int64_t>> tasks;
  std::vector<int64_t> bounds;
  for (size_t s = 0; s < m.slices.size(); ++s) {
    std::string_view category = m.Str(m.slices.category[s]);
    if (category != "kernel" && category != "gpu_memcpy" && category != "gpu_memset") continue;
    tasks.emplace_back(m.slices.ts[s], m.slices.end[s]);
    bounds.push_back(m.slices.ts[s]);
    bounds.push_back(m.slices.end[s]);
  }
  std::sort(bounds.begin(), bounds.end());
  int64_t covered = 0;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    int64_t middle = bounds[i];
    bool inside = std::any_of(tasks.begin(), tasks.end(), [&](const auto& t) {
      return t.first <= middle && middle < t.second;
    });
    if (inside) covered += bounds[i + 1] - bounds[i];
  }
  EXPECT_EQ(analysis::TotalLength(gpu.computing), covered);
  EXPECT_TRUE(gpu.communication.empty());

  std::ostringstream out, err;
  exporter::AnalyzeOptions options;
  options.inputs = {dir};
  ASSERT_EQ(exporter::RunAnalyze(options, out, err).exit_code, 0) << err.str();
  EXPECT_NE(out.str().find("CUDA run: compute = device kernels/memcpy/memset on 1 device(s)"),
            std::string::npos)
      << out.str();
  std::ifstream csv(fs::path(dir) / "aiprof_output" / "analysis" / "step_trace_time.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(row.rfind("0,", 0), 0u) << row;  // Device_id 0
}

TEST_F(CudaEndToEnd, SummariesListWhatTheSessionLaunched) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const Model m = model::ParseProfDir(Collect(collector, cupti));

  const std::string op_summary = TableCsv(exporter::WriteCudaKernelDetails, m, output_ / "tables");
  EXPECT_TRUE(op_summary.starts_with("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type"));
  EXPECT_EQ(Lines(op_summary), 1u + session_.kernels);
  EXPECT_NE(op_summary.find(",\"reduce(float const*, float*, int)\",N/A,N/A,KERNEL,"),
            std::string::npos)
      << op_summary;
  EXPECT_NE(op_summary.find(",\"[1024, 1, 1]\",\"[512, 1, 1]\",32,2048,100.00,"), std::string::npos)
      << op_summary;

  const std::string task_time = TableCsv(exporter::WriteCudaTaskTime, m, output_ / "tables");
  EXPECT_EQ(Lines(task_time), 1u + session_.kernels + session_.memcpys + session_.memsets);

  const std::string copies = TableCsv(exporter::WriteCudaMemcpy, m, output_ / "tables");
  EXPECT_EQ(Lines(copies), 1u + session_.memcpys);
  EXPECT_NE(copies.find(",HtoD,Pageable,Device,4194304,"), std::string::npos) << copies;
  EXPECT_NE(copies.find(",DtoH,Device,Pinned,4194304,"), std::string::npos) << copies;

  // Three 4 MiB allocations: 4096, 8192, 12288 KB allocated by the app.
  const std::string memory = TableCsv(exporter::WriteCudaDeviceMemory, m, output_ / "tables");
  EXPECT_EQ(Lines(memory), 1u + session_.allocations);
  EXPECT_NE(memory.find("0,app,0.000,12288.000,12288.000,"), std::string::npos) << memory;

  // The export job's hook writes the four files.
  std::vector<std::string> written, errors;
  const exporter::SummaryTarget target{output_.string(), "test", exporter::SummaryFormat::kCsv,
                                       &written, &errors};
  exporter::WriteCudaSummaries(m, target);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(written.size(), 4u);
  for (const std::string& path : written) EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_TRUE(written[0].ends_with("kernel_details_test.csv"));
}

TEST_F(CudaEndToEnd, SummariesFollowTheSummaryFormatAndTheRowLimit) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const Model m = model::ParseProfDir(Collect(collector, cupti));
  ASSERT_GE(session_.kernels, 3u);

  // --summary-format=json: one array of objects keyed by the CSV headers.
  WrittenTable json =
      WriteTable(exporter::WriteCudaSummaries, m, output_ / "json", exporter::SummaryFormat::kJson);
  EXPECT_TRUE(json.errors.empty());
  ASSERT_EQ(json.paths.size(), 4u);
  for (const std::string& path : json.paths) EXPECT_TRUE(path.ends_with("_t.json")) << path;
  const nlohmann::json kernels = nlohmann::json::parse(ReadText(json.paths[0]));
  ASSERT_TRUE(kernels.is_array());
  ASSERT_EQ(kernels.size(), session_.kernels);
  bool found_reduce = false;
  for (const nlohmann::json& row : kernels) {
    if (row["Op Name"] != "reduce(float const*, float*, int)") continue;
    found_reduce = true;
    EXPECT_EQ(row["Task Type"], "KERNEL");
    EXPECT_EQ(row["Grid"], "[1024, 1, 1]");
    EXPECT_EQ(row["Registers Per Thread"], 32);
    EXPECT_DOUBLE_EQ(row["Theoretical Occupancy(%)"].get<double>(), 100.0);
    EXPECT_TRUE(row["Task Duration(us)"].is_number());
  }
  EXPECT_TRUE(found_reduce);
  const nlohmann::json memory = nlohmann::json::parse(ReadText(json.paths[3]));
  ASSERT_EQ(memory.size(), session_.allocations);
  bool found_peak = false;
  for (const nlohmann::json& row : memory) {
    found_peak |= row["event"] == "app" && row["hbm(KB)"].get<double>() == 12288.0;
  }
  EXPECT_TRUE(found_peak) << memory.dump();

  // CSV above the row limit: _slice_<i> files of at most `limit` rows each, every one with
  // the header, together holding every row once.
  const uint64_t limit = 2;
  WrittenTable split = WriteTable(exporter::WriteCudaKernelDetails, m, output_ / "split",
                                  exporter::SummaryFormat::kCsv, limit);
  EXPECT_TRUE(split.errors.empty());
  ASSERT_EQ(split.paths.size(), (session_.kernels + limit - 1) / limit);
  size_t rows = 0;
  for (size_t i = 0; i < split.paths.size(); ++i) {
    EXPECT_TRUE(split.paths[i].ends_with("kernel_details_slice_" + std::to_string(i) + "_t.csv"))
        << split.paths[i];
    const std::string text = ReadText(split.paths[i]);
    EXPECT_TRUE(text.starts_with("Device_id,Model ID,Task ID")) << text;
    const size_t file_rows = Lines(text) - 1;
    EXPECT_GE(file_rows, 1u);
    EXPECT_LE(file_rows, limit);
    rows += file_rows;
  }
  EXPECT_EQ(rows, session_.kernels);
}

// The CUDA source's window with kernel counters and stream ranges on, as plugin_main.cc
// drives it: collector, range profiler and stream markers, all behind test doubles.
class CudaDeviceFeatures : public CudaEndToEnd {
 protected:
  struct Parts {
    CudaCollector* collector;
    KernelMetrics* metrics;
    MetricSelection selection;
  };
  static Parts*& Active() {
    static Parts* parts = nullptr;
    return parts;
  }
  static void OnRangeStart(uint64_t id, void* stream) { Marker()->Start(id, stream); }
  static void OnRangeEnd(uint64_t id) { Marker()->End(id); }
  static StreamRangeMarker*& Marker() {
    static StreamRangeMarker* marker = nullptr;
    return marker;
  }

  // Opens a window, runs `work` inside it, returns the PROF dir.
  template <typename Work>
  std::string Window(Parts* parts, Work work) {
    Active() = parts;
    static const aiprof_source source{
        AIPROF_PLUGIN_ABI_VERSION,
        "cuda-device-test",
        [](void*) {
          std::string error, warnings;
          Active()->collector->Start(ActivitySelection{.device_markers = true}, &error, &warnings);
          Marker()->set_enabled(true);
          Active()->metrics->Start(Active()->selection);
        },
        [](void*) {
          Marker()->set_enabled(false);
          Active()->metrics->Stop();
          Active()->collector->Stop();
        },
        [](void*) { Active()->collector->Flush(); },
        nullptr,
        nullptr};
    std::string error;
    EXPECT_TRUE(parts->collector->Attach(&error)) << error;
    EXPECT_EQ(aiprof_register_source(&source), 0);
    aiprof_set_device_range_hooks(OnRangeStart, OnRangeEnd);
    aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
    EXPECT_EQ(aiprofStart(config), 0) << aiprofLastError();
    work();
    const std::string dir = aiprofCurrentDir();
    EXPECT_EQ(aiprofStop(config), 0) << aiprofLastError();
    aiprofDestroyConfig(config);
    aiprof_set_device_range_hooks(nullptr, nullptr);
    return dir;
  }

  std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  testing::CuptiTestDouble cupti_;
  testing::CudaDriverTestDouble driver_{&cupti_};
  testing::RangeProfilerTestDouble profiler_;
};

TEST_F(CudaDeviceFeatures, KernelCountersBecomeKernelArgsAndOpSummaryColumns) {
  const CUcontext context = driver_.AddDevice(0, true);
  profiler_.set_values([](const std::string& kernel, const std::string& metric) {
    if (metric == "lts__t_sector_hit_rate.pct") return kernel == "_Z5scalePffi" ? 87.5 : 42.25;
    return 1.0;
  });
  CudaCollector collector(cupti_.api(), RuntimeHost(), {});
  KernelMetrics metrics(profiler_.api(), cupti_.api(), driver_.api(), RuntimeHost(), nullptr);
  StreamRangeMarker marker(driver_.api(), cupti_.api());
  Marker() = &marker;
  MetricSelection selection;
  std::string error;
  ASSERT_TRUE(SelectMetrics(false, "", true, &selection, &error));
  Parts parts{&collector, &metrics, selection};
  const std::string dir = Window(&parts, [&] {
    const uint64_t base = cupti_.cupti_now() - 5'000'000;
    // A kernel that ran before counters were on (no range), then two profiled ones.
    cupti_.Record(testing::MakeKernel("_Z4warmv", 13, 501, base, base + 10'000, 1, 32, 16, 0));
    cupti_.Record(testing::MakeKernel("_Z5scalePffi", 13, 502, base + 100'000, base + 150'000, 64,
                                      256, 32, 0));
    profiler_.LaunchKernel(context, "_Z5scalePffi");
    cupti_.Record(testing::MakeKernel("_Z6reducePKfPfi", 13, 503, base + 200'000, base + 260'000,
                                      64, 256, 32, 0));
    profiler_.LaunchKernel(context, "_Z6reducePKfPfi");
  });
  const Model m = model::ParseProfDir(dir);
  std::map<std::string, std::optional<double>> hit_rate;
  for (size_t s = 0; s < m.slices.size(); ++s) {
    if (m.Str(m.slices.category[s]) != "kernel") continue;
    const auto value = UIntArg(m, m.slices.args[s], "metric.l2_hit_rate(%)");
    hit_rate[std::string(m.Str(m.slices.name[s]))] =
        value ? std::optional<double>(std::bit_cast<double>(*value)) : std::nullopt;
  }
  ASSERT_EQ(hit_rate.size(), 3u);
  EXPECT_FALSE(hit_rate["warm()"].has_value()) << "ran before counters were on";
  EXPECT_EQ(hit_rate["scale(float*, float, int)"], 87.5);
  EXPECT_EQ(hit_rate["reduce(float const*, float*, int)"], 42.25);

  const std::string csv = TableCsv(exporter::WriteCudaKernelDetails, m, output_ / "tables");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(
      header.ends_with("Graph Node ID,l2_hit_rate(%),l2_read_hit_rate(%),l2_write_hit_rate(%)"))
      << header;
  EXPECT_NE(csv.find(",87.500,1.000,1.000\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",N/A,N/A,N/A\n"), std::string::npos) << "warm() has no counters\n" << csv;

  // The generic op_summary puts the same columns after its fixed ones.
  std::vector<std::string> written, errors;
  const exporter::SummaryTarget target{output_.string(), "metrics", exporter::SummaryFormat::kCsv,
                                       &written, &errors};
  exporter::WriteOpSummaries(m, target);
  ASSERT_FALSE(written.empty());
  const std::string op_summary = ReadFile(written[0]);
  EXPECT_TRUE(
      op_summary.starts_with("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP "
                             "State,Task Type,Task Start Time(us),Task Duration(us),Task "
                             "Wait Time(us),l2_hit_rate(%),l2_read_hit_rate(%),"
                             "l2_write_hit_rate(%)\n"))
      << op_summary;
  EXPECT_NE(op_summary.find(",42.25"), std::string::npos) << op_summary;
  // msprof's l2_cache (torch_npu's l2_cache.csv with l2_cache=True): the two kernels with a
  // hit rate, by op_summary's Task ID, the rate as a fraction; CUPTI has no victim rate.
  const auto l2 = std::find_if(written.begin(), written.end(), [](const std::string& path) {
    return path.find("l2_cache") != std::string::npos;
  });
  ASSERT_NE(l2, written.end());
  EXPECT_EQ(ReadFile(*l2),
            "Device_id,Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n"
            "0,13,1,0.875000,N/A,\"scale(float*, float, int)\"\n"
            "0,13,2,0.422500,N/A,\"reduce(float const*, float*, int)\"\n");

  // The window says counters were on and timing is distorted by replay.
  bool said = false;
  for (size_t i = 0; i < m.instants.size(); ++i) {
    if (m.Str(m.instants.category[i]) == "cuda_metrics") {
      said = m.Str(m.instants.name[i]).find("distorted") != std::string_view::npos;
    }
  }
  EXPECT_TRUE(said);
}

TEST_F(CudaDeviceFeatures, RangesNotNamedAfterKernelsFollowLaunchOrder) {
  const CUcontext context = driver_.AddDevice(0, true);
  profiler_.set_values([](const std::string& range, const std::string&) {
    return range == "range 0" ? 10.0 : 20.0;
  });
  CudaCollector collector(cupti_.api(), RuntimeHost(), {});
  KernelMetrics metrics(profiler_.api(), cupti_.api(), driver_.api(), RuntimeHost(), nullptr);
  StreamRangeMarker marker(driver_.api(), cupti_.api());
  Marker() = &marker;
  MetricSelection selection;
  std::string error;
  ASSERT_TRUE(SelectMetrics(false, "", true, &selection, &error));
  Parts parts{&collector, &metrics, selection};
  const Model m = model::ParseProfDir(Window(&parts, [&] {
    const uint64_t base = cupti_.cupti_now() - 5'000'000;
    // Recorded out of order: the importer orders kernels by start time.
    cupti_.Record(testing::MakeKernel("_Z3addPKfS0_Pfi", 14, 702, base + 90'000, base + 95'000, 64,
                                      256, 32, 0));
    cupti_.Record(
        testing::MakeKernel("_Z5scalePffi", 13, 701, base + 10'000, base + 20'000, 64, 256, 32, 0));
    profiler_.LaunchKernel(context, "range 0");
    profiler_.LaunchKernel(context, "range 1");
  }));
  std::map<std::string, double> hit_rate;
  for (size_t s = 0; s < m.slices.size(); ++s) {
    if (m.Str(m.slices.category[s]) != "kernel") continue;
    const auto value = UIntArg(m, m.slices.args[s], "metric.l2_hit_rate(%)");
    ASSERT_TRUE(value.has_value());
    hit_rate[std::string(m.Str(m.slices.name[s]))] = std::bit_cast<double>(*value);
  }
  EXPECT_EQ(hit_rate["scale(float*, float, int)"], 10.0);
  EXPECT_EQ(hit_rate["add(float const*, float const*, float*, int)"], 20.0);
}

TEST_F(CudaDeviceFeatures, InsufficientPrivilegesShowsInTheModel) {
  driver_.AddDevice(0, true);
  profiler_.FailWith("cuptiRangeProfilerSetConfig", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  CudaCollector collector(cupti_.api(), RuntimeHost(), {});
  KernelMetrics metrics(profiler_.api(), cupti_.api(), driver_.api(), RuntimeHost(), nullptr);
  StreamRangeMarker marker(driver_.api(), cupti_.api());
  Marker() = &marker;
  MetricSelection selection;
  std::string error;
  ASSERT_TRUE(SelectMetrics(true, "PipeUtilization", false, &selection, &error));
  Parts parts{&collector, &metrics, selection};
  const Model m = model::ParseProfDir(Window(&parts, [] {}));
  bool denied = false;
  for (size_t i = 0; i < m.instants.size(); ++i) {
    if (m.Str(m.instants.category[i]) != "cuda_metrics") continue;
    denied = m.Str(m.instants.name[i]).find("NVreg_RestrictProfilingToAdminUsers=0") !=
             std::string_view::npos;
    EXPECT_EQ(UIntArg(m, m.instants.args[i], "status"),
              static_cast<uint64_t>(format::CudaMetricsStatus::kPermissionDenied));
  }
  EXPECT_TRUE(denied);
}

TEST_F(CudaDeviceFeatures, MstxRangeOnAStreamGetsDeviceTimeEnclosingItsKernels) {
  const CUcontext context = driver_.AddDevice(0, true);
  const CUstream stream = driver_.AddStream(context, 13);
  driver_.set_app_tid(static_cast<uint32_t>(syscall(SYS_gettid)));
  CudaCollector collector(cupti_.api(), RuntimeHost(), {});
  KernelMetrics metrics(profiler_.api(), cupti_.api(), driver_.api(), RuntimeHost(), nullptr);
  StreamRangeMarker marker(driver_.api(), cupti_.api());
  Marker() = &marker;
  Parts parts{&collector, &metrics, MetricSelection{}};
  const std::string dir = Window(&parts, [&] {
    const uint64_t base = cupti_.cupti_now() - 5'000'000;
    driver_.SetDeviceTime(stream, base);
    const mstxRangeId id = mstxRangeStartA("forward", stream);
    EXPECT_NE(id, 0u);
    cupti_.Record(testing::MakeKernel("_Z5scalePffi", 13, 601, base + 50'000, base + 300'000, 64,
                                      256, 32, 0));
    driver_.SetDeviceTime(stream, base + 400'000);
    mstxRangeEnd(id);
    const mstxRangeId host_only = mstxRangeStartA("host only", nullptr);
    mstxRangeEnd(host_only);
  });
  const Model m = model::ParseProfDir(dir);
  uint32_t kernel = model::kNoRow;
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    if (m.Str(m.slices.category[s]) == "kernel") kernel = s;
  }
  ASSERT_NE(kernel, model::kNoRow);
  int with_device = 0;
  for (size_t i = 0; i < m.markers.size(); ++i) {
    const std::string_view name = m.Str(m.slices.name[m.markers.row[i]]);
    const uint32_t device = m.markers.device_slice(i);
    if (name == "host only") {
      EXPECT_EQ(device, model::kNoRow);
      continue;
    }
    ASSERT_EQ(name, "forward");
    ASSERT_NE(device, model::kNoRow);
    ++with_device;
    EXPECT_EQ(m.Str(m.slices.name[device]), "forward");
    EXPECT_EQ(m.Str(m.slices.category[device]), "mstx_device");
    EXPECT_EQ(m.ThreadOfSlice(device), m.ThreadOfSlice(kernel)) << "on the stream's track";
    EXPECT_LE(m.slices.ts[device], m.slices.ts[kernel]);
    EXPECT_GE(m.slices.end[device], m.slices.end[kernel]);
    EXPECT_NEAR(static_cast<double>(m.slices.dur(device)), 400'000.0, 8'000.0);
  }
  EXPECT_EQ(with_device, 1);

  std::vector<std::string> written, errors;
  const exporter::SummaryTarget target{output_.string(), "tx", exporter::SummaryFormat::kCsv,
                                       &written, &errors};
  exporter::WriteMsprofTx(m, target);
  ASSERT_EQ(written.size(), 1u);
  const std::string tx = ReadFile(written[0]);
  size_t forward = tx.find(",forward,");
  ASSERT_NE(forward, std::string::npos) << tx;
  const std::string row = tx.substr(forward, tx.find('\n', forward) - forward);
  EXPECT_EQ(row.find("N/A"), std::string::npos) << "Device Start/End filled: " << row;
  const size_t host_only = tx.find(",host only,");
  ASSERT_NE(host_only, std::string::npos);
  EXPECT_TRUE(tx.substr(host_only, tx.find('\n', host_only) - host_only).ends_with(",N/A,N/A"));
}

}  // namespace
}  // namespace aiprof::cuda

namespace aiprof::cuda {
namespace {

// The advice rules that need a GPU run, on the recorded session: the kernel records' launch
// shapes reach the kernel-efficiency rule, the launch flows the host-bound rule, and the
// cudaStreamSynchronize that blocks the host for most of the session the host-sync rule.
TEST_F(CudaEndToEnd, AdviceReadsKernelShapesLaunchesAndSynchronisation) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const std::string dir = Collect(collector, cupti);
  ASSERT_FALSE(dir.empty());
  const Model m = model::ParseProfDir(dir);
  const analysis::AnalysisSet set = analysis::RunAnalyses(m);
  analysis::advice::AdviceInput input;
  input.profiles.push_back(analysis::advice::MakeProfileInput(m, set, "session"));
  const analysis::advice::ProfileFacts& facts = input.profiles[0].facts;
  EXPECT_TRUE(facts.device_operators);
  EXPECT_TRUE(facts.has_runtime_calls);
  // scale, add and reduce: 4096 or 1024 blocks over 132 SMs.
  ASSERT_EQ(facts.kernels.size(), 3u);
  for (const analysis::advice::KernelShape& kernel : facts.kernels) {
    EXPECT_GT(kernel.blocks_per_sm, 7.0) << kernel.name;
    // From CUPTI's occupancy calculator on the device record's limits.
    EXPECT_GT(kernel.theoretical_occupancy_pct, 0) << kernel.name;
    EXPECT_FALSE(kernel.occupancy_limit.empty()) << kernel.name;
  }
  ASSERT_EQ(facts.sync_calls.size(), 1u);
  EXPECT_EQ(facts.sync_calls[0].name, "cudaStreamSynchronize");
  // 765 µs on the CUPTI clock; the clock mapping to the host's may stretch it slightly.
  EXPECT_NEAR(static_cast<double>(facts.sync_calls[0].total_ns), 765'000.0, 8'000.0);

  const analysis::advice::AdviceReport report =
      analysis::advice::RunAdvice(input, analysis::advice::Thresholds::Defaults());
  std::map<std::string, const analysis::advice::Finding*> by_rule;
  for (const auto& finding : report.findings) by_rule[finding.rule] = &finding;
  using analysis::advice::RuleStatus;
  // The host blocks most of the step while the device runs what it launched, and the step
  // ends when the device is done: no device time is lost to the synchronisation.
  EXPECT_EQ(by_rule.at("host_sync")->status, RuleStatus::kPassed)
      << by_rule.at("host_sync")->detail;
  EXPECT_NE(by_rule.at("host_sync")->detail.find("device idled 0.0%"), std::string::npos)
      << by_rule.at("host_sync")->detail;
  EXPECT_EQ(by_rule.at("kernel_efficiency")->status, RuleStatus::kPassed)
      << by_rule.at("kernel_efficiency")->detail;
  EXPECT_EQ(by_rule.at("fp32_matmul")->status, RuleStatus::kPassed)  // no GEMM kernels
      << by_rule.at("fp32_matmul")->detail;
  for (const char* rule : {"host_bound", "low_utilisation", "dominant_operators"}) {
    EXPECT_NE(by_rule.at(rule)->status, RuleStatus::kNotEvaluated)
        << rule << ": " << by_rule.at(rule)->detail;
  }
}

// The memory rule's finding on a parsed session.
analysis::advice::Finding MemoryAdvice(const Model& m) {
  const analysis::AnalysisSet set = analysis::RunAnalyses(m);
  analysis::advice::AdviceInput input;
  input.profiles.push_back(analysis::advice::MakeProfileInput(m, set, "session"));
  const analysis::advice::AdviceReport report =
      analysis::advice::RunAdvice(input, analysis::advice::Thresholds::Defaults());
  for (const auto& finding : report.findings) {
    if (finding.rule == "memory") return finding;
  }
  ADD_FAILURE() << "no memory finding";
  return {};
}

// The device record's memory size reaches the model and the memory pools' capacity; the
// memory rule judges the CUPTI allocations' peak (three 4 MiB buffers) against it without
// --config.
TEST_F(CudaEndToEnd, RecordedDeviceMemoryIsTheCapacityTheMemoryRuleJudges) {
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  const Model m = model::ParseProfDir(Collect(collector, cupti));
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].total_memory, 85021163520u);
  EXPECT_EQ(m.Str(m.devices[0].name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.devices[0].sm_count, 132u);
  const analysis::AnalysisSet set = analysis::RunAnalyses(m);
  bool found_pool = false;
  for (const analysis::MemoryPool& pool : set.memory.pools) {
    if (pool.name != "GPU 0 allocated (CUPTI)") continue;
    found_pool = true;
    EXPECT_EQ(pool.capacity, 85021163520);
    EXPECT_EQ(pool.capacity_source, "CUDA device record");
  }
  EXPECT_TRUE(found_pool);
  const analysis::advice::Finding on_h100 = MemoryAdvice(m);
  EXPECT_EQ(on_h100.status, analysis::advice::RuleStatus::kPassed) << on_h100.detail;
}

TEST_F(CudaEndToEnd, MemoryRuleFiresNearTheRecordedDeviceMemory) {
  // The session on a test double's device of 13 MiB: its 12 MiB peak is past 0.9 of it.
  testing::CuptiTestDouble cupti;
  CudaCollector collector(cupti.api(), RuntimeHost(), {});
  CUpti_ActivityDevice5 small = testing::H100Device();
  small.globalMemorySize = 13u << 20;
  const Model m = model::ParseProfDir(Collect(collector, cupti, small));
  const analysis::advice::Finding near = MemoryAdvice(m);
  EXPECT_EQ(near.status, analysis::advice::RuleStatus::kTriggered) << near.detail;
  EXPECT_NE(near.detail.find("GPU 0 allocated (CUPTI) peaks at 12.0 MiB of 13.0 MiB (CUDA device "
                             "record"),
            std::string::npos)
      << near.detail;
}

}  // namespace
}  // namespace aiprof::cuda
