#include "export/csv/summaries.h"

#include <nlohmann/json.hpp>

#include "export/export_job.h"
#include "export_fixture.h"

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
