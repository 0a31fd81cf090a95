#include "export/csv/summaries.h"

#include <nlohmann/json.hpp>

#include "export/export_job.h"
#include "export_fixture.h"
#include "format/records_host.h"

namespace aiprof::exporter {
namespace {

std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      row.push_back(cell);
      rows.push_back(row);
      row.clear();
      cell.clear();
    } else {
      cell += c;
    }
  }
  return rows;
}

class SummariesTest : public ExportFixture {
 protected:
  void ExportText(SummaryFormat format = SummaryFormat::kCsv) {
    ExportOptions options;
    options.output = prof_;
    options.timestamp = "20260101000000";
    options.summary_format = format;
    std::ostringstream out, err;
    ASSERT_EQ(RunExport(options, out, err).exit_code, 0) << err.str();
  }
};

TEST_F(SummariesTest, StepTraceMatchesHandComputedFigures) {
  ExportText();
  auto rows = ParseCsv(ReadFile(Output("step_trace_20260101000000.csv")));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{
                         "Device_id", "Iteration ID", "FP Start(us)", "BP End(us)",
                         "Iteration End(us)", "Iteration Time(us)", "FP to BP Time(us)",
                         "Iteration Refresh(us)", "Data Aug Bound(us)", "Model ID"}));
  // Step 1: first forward at 1100, last child ends 1500, step ends 2000.
  EXPECT_EQ(rows[1], (std::vector<std::string>{"host", "1", GoldenMicros(1100), GoldenMicros(1500),
                                               GoldenMicros(2000), "1.000", "0.400", "0.500", "N/A",
                                               "N/A"}));
  // Step 2: forward 2100..2400, step 2000..3000; data aug = 2100 − 2000.
  EXPECT_EQ(rows[2], (std::vector<std::string>{"host", "2", GoldenMicros(2100), GoldenMicros(2400),
                                               GoldenMicros(3000), "1.000", "0.300", "0.600",
                                               "0.100", "N/A"}));
}

TEST_F(SummariesTest, MsprofTxRows) {
  ExportText();
  auto rows = ParseCsv(ReadFile(Output("msprof_tx_20260101000000.csv")));
  ASSERT_EQ(rows.size(), 8u);  // header + 5 push/pop + 1 marker + 1 start/end
  EXPECT_EQ(rows[0][0], "Device_id");
  EXPECT_EQ(rows[0].size(), 14u);
  EXPECT_EQ(rows[0][13], "Device End_time(us)");
  bool found_async = false;
  for (const auto& row : rows) {
    if (row[10] != "async") continue;
    found_async = true;
    EXPECT_EQ(row, (std::vector<std::string>{"host", "4242", "101", "0", "start/end", "N/A", "N/A",
                                             GoldenMicros(1700), GoldenMicros(2500), "ascii",
                                             "async", "train", "N/A", "N/A"}));
  }
  EXPECT_TRUE(found_async);
}

TEST_F(SummariesTest, JsonSummaryFormat) {
  ExportText(SummaryFormat::kJson);
  auto rows = nlohmann::json::parse(ReadFile(Output("step_trace_20260101000000.json")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1]["Data Aug Bound(us)"], 0.1);
  EXPECT_EQ(rows[0]["Data Aug Bound(us)"], "N/A");
  EXPECT_EQ(rows[0]["Iteration ID"], 1);
}

TEST_F(SummariesTest, CpuOnlyComputeTasksAreFrameworkOperators) {
  model::Model m = CpuOpModel();
  std::vector<std::string> written, errors;
  SummaryTarget target{root_.string(), "1", SummaryFormat::kCsv, &written, &errors};
  WriteAllSummaries(m, target);
  ASSERT_TRUE(errors.empty());
  auto summary = ParseCsv(ReadFile((root_ / "op_summary_1.csv").string()));
  ASSERT_EQ(summary.size(), 4u);
  EXPECT_EQ(summary[0].size(), 11u);
  EXPECT_EQ(summary[0][10], "Task Wait Time(us)");
  EXPECT_EQ(summary[2], (std::vector<std::string>{"host", "N/A", "1", "70", "aten::mm", "aten::mm",
                                                  "N/A", "CPU", "1.200", "0.300", "0.100"}));
  auto statistic = ParseCsv(ReadFile((root_ / "op_statistic_1.csv").string()));
  ASSERT_EQ(statistic.size(), 3u);
  EXPECT_EQ(statistic[1],
            (std::vector<std::string>{"host", "aten::mm", "CPU", "2", "0.400", "0.100", "0.200",
                                      "0.300", "88.88888888888889"}));
  auto api = ParseCsv(ReadFile((root_ / "api_statistic_1.csv").string()));
  ASSERT_EQ(api.size(), 3u);
  // Variance of {100, 300} ns = 10000 ns² = 0.01 µs².
  EXPECT_EQ(api[1], (std::vector<std::string>{"host", "Framework", "aten::mm", "0.400", "2",
                                              "0.200", "0.100", "0.300", "0.01"}));
}

// Kernels on GPU 0, stream 7 (as the CUDA source imports them): device tasks win over
// framework operators, and task_time lists them.
TEST_F(SummariesTest, DeviceKernelsAreComputeTasks) {
  model::Model m = CpuOpModel();
  model::ImportContext context(&m);
  context.SetProcess(0);
  uint32_t gpu = context.DeviceProcess(0, "GPU 0");
  uint32_t stream = context.MainTrack(context.Thread(gpu, 7));
  model::StringId kernel = m.strings.Intern("kernel");
  context.AddSlice(stream, 2000, 2500, m.strings.Intern("gemm_kernel"), kernel);
  context.AddSlice(stream, 2600, 2700, m.strings.Intern("Memcpy HtoD"),
                   m.strings.Intern("gpu_memcpy"));
  model::ResolveNesting(m);
  std::vector<std::string> written, errors;
  SummaryTarget target{root_.string(), "2", SummaryFormat::kCsv, &written, &errors};
  WriteAllSummaries(m, target);
  auto summary = ParseCsv(ReadFile((root_ / "op_summary_2.csv").string()));
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[1],
            (std::vector<std::string>{"0", "N/A", "0", "7", "gemm_kernel", "gemm_kernel", "N/A",
                                      "KERNEL", "2.000", "0.500", "0.000"}));
  EXPECT_EQ(summary[2][7], "MEMCPY");
  EXPECT_EQ(summary[2][10], "0.100");
  auto task_time = ParseCsv(ReadFile((root_ / "task_time_2.csv").string()));
  ASSERT_EQ(task_time.size(), 3u);
  EXPECT_EQ(task_time[0], (std::vector<std::string>{"Device_id", "kernel_name", "kernel_type",
                                                    "stream_id", "task_id", "task_time(us)",
                                                    "task_start(us)", "task_stop(us)"}));
  EXPECT_EQ(task_time[1], (std::vector<std::string>{"0", "gemm_kernel", "KERNEL", "7", "0", "0.500",
                                                    "2.000", "2.500"}));
  EXPECT_EQ(task_time[2][1], "N/A");
}

TEST_F(SummariesTest, LargeCsvIsSlicedAtTheRowLimit) {
  std::vector<std::string> written, errors;
  SummaryTarget target{root_.string(), "1", SummaryFormat::kCsv, &written, &errors};
  {
    SummaryWriter w(target, "big", {"A"}, 5, 2);
    for (int i = 0; i < 5; ++i) w.Number(i).EndRow();
  }
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(ReadFile((root_ / "big_slice_0_1.csv").string()), "A\n0\n1\n");
  EXPECT_EQ(ReadFile((root_ / "big_slice_2_1.csv").string()), "A\n4\n");
}

}  // namespace
}  // namespace aiprof::exporter

namespace aiprof::exporter {
namespace {

// Host resource samples as the launcher's sampler writes them: two samples per series.
TEST_F(SummariesTest, HostSummariesAreMeansOfTheSamples) {
  model::Model m = CpuOpModel();
  m.processes.metadata[0] = R"({"processes": {"7": {"name": "python"}, "8": {"name": "worker"}}})";
  model::ImportContext context(&m);
  context.SetProcess(0);
  auto series = [&](const char* name, format::CounterScope scope, uint32_t instance) {
    return context.CounterSeries(m.strings.Intern(name), 0, static_cast<uint16_t>(scope), instance,
                                 m.strings.Intern(""));
  };
  auto two = [&](uint32_t s, double a, double b) {
    context.AddCounter(s, 100, a);
    context.AddCounter(s, 200, b);
  };
  using format::CounterScope;
  namespace names = format::host_counters;
  two(series(names::kCpuUser, CounterScope::kMachine, 0), 40, 60);
  two(series(names::kCpuIdle, CounterScope::kMachine, 0), 50, 30);
  two(series(names::kCpuUser, CounterScope::kCpu, 1), 10, 20);
  two(series(names::kMemTotal, CounterScope::kMachine, 0), 1000, 1000);
  two(series(names::kMemFree, CounterScope::kMachine, 0), 300, 500);
  two(series(names::kProcCpu, CounterScope::kProcess, 8), 90, 110);
  two(series(names::kProcMemSize, CounterScope::kProcess, 8), 10, 30);
  two(series(names::kProcMemResident, CounterScope::kProcess, 8), 4, 6);
  two(series(names::kProcMemShared, CounterScope::kProcess, 8), 1, 1);

  std::vector<std::string> written, errors;
  SummaryTarget target{root_.string(), "3", SummaryFormat::kCsv, &written, &errors};
  WriteHostSummaries(m, target);
  ASSERT_TRUE(errors.empty());
  auto cpu = ParseCsv(ReadFile((root_ / "cpu_usage_3.csv").string()));
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu[0], (std::vector<std::string>{"Cpu Type", "User(%)", "Sys(%)", "IoWait(%)",
                                              "Irq(%)", "Soft(%)", "Idle(%)"}));
  EXPECT_EQ(cpu[1], (std::vector<std::string>{"Avg", "50", "N/A", "N/A", "N/A", "N/A", "40"}));
  EXPECT_EQ(cpu[2], (std::vector<std::string>{"CPU1", "15", "N/A", "N/A", "N/A", "N/A", "N/A"}));
  auto sys_mem = ParseCsv(ReadFile((root_ / "sys_mem_3.csv").string()));
  ASSERT_EQ(sys_mem.size(), 2u);
  EXPECT_EQ(sys_mem[0][0], "Memory Total");
  EXPECT_EQ(sys_mem[1][0], "1000");
  EXPECT_EQ(sys_mem[1][1], "400");
  auto process_cpu = ParseCsv(ReadFile((root_ / "process_cpu_usage_3.csv").string()));
  ASSERT_EQ(process_cpu.size(), 2u);
  EXPECT_EQ(process_cpu[1], (std::vector<std::string>{"8", "worker", "100"}));
  auto process_mem = ParseCsv(ReadFile((root_ / "process_mem_3.csv").string()));
  ASSERT_EQ(process_mem.size(), 2u);
  EXPECT_EQ(process_mem[0], (std::vector<std::string>{"PID", "Name", "Size(pages)",
                                                      "Resident(pages)", "Shared(pages)"}));
  EXPECT_EQ(process_mem[1], (std::vector<std::string>{"8", "worker", "20", "5", "1"}));
}

}  // namespace
}  // namespace aiprof::exporter
