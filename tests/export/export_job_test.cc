#include "export/export_job.h"

#include <sys/wait.h>

#include <cstdlib>

#include "export/query.h"
#include "export_fixture.h"

namespace aiprof::exporter {
namespace {

namespace fs = std::filesystem;

class ExportJobTest : public ExportFixture {
 protected:
  ExportResult Run(const std::string& output, std::string* err_text = nullptr,
                   const std::string& timestamp = "20260101000000", bool clear = false) {
    ExportOptions options;
    options.output = output;
    options.timestamp = timestamp;
    options.clear = clear;
    std::ostringstream out, err;
    ExportResult result = RunExport(options, out, err);
    if (err_text) *err_text = err.str();
    return result;
  }
};

TEST_F(ExportJobTest, MissingForeignOrEmptyDirectoryExitsTwo) {
  std::string err;
  EXPECT_EQ(Run((root_ / "missing").string(), &err).exit_code, 2);
  EXPECT_NE(err.find("does not exist"), std::string::npos);
  fs::create_directories(root_ / "foreign" / "stuff");
  EXPECT_EQ(Run((root_ / "foreign").string(), &err).exit_code, 2);
  EXPECT_NE(err.find("no PROF_*"), std::string::npos);
  fs::path empty = root_ / "other" / "PROF_000002_20260101000000000_EMPTYEMPTYEMPTY1";
  fs::create_directories(empty);
  EXPECT_EQ(Run(empty.string(), &err).exit_code, 2);
  EXPECT_NE(err.find("holds no raw data"), std::string::npos);
}

TEST_F(ExportJobTest, CorruptDataExportsWhatIsIntactAndSaysWhatWasSkipped) {
  std::string file = prof_ + "/host/data/aiprof.4242.data";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file)) - 40);
    f.put('\x7f');
  }
  std::string err;
  ExportResult result = Run(prof_, &err);
  EXPECT_EQ(result.exit_code, 0) << err;
  EXPECT_NE(err.find("skipped"), std::string::npos) << err;
  EXPECT_NE(err.find("aiprof.4242.data"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(Output("trace_view_20260101000000.json")));
}

TEST_F(ExportJobTest, ExportTwiceIsIdempotentAndClearRemovesEarlierOutputs) {
  ASSERT_EQ(Run(root_.string()).exit_code, 0);
  std::string first = ReadFile(Output("trace_view_20260101000000.json"));
  std::string first_steps = ReadFile(Output("step_trace_20260101000000.csv"));
  ASSERT_EQ(Run(root_.string()).exit_code, 0);
  EXPECT_EQ(ReadFile(Output("trace_view_20260101000000.json")), first);
  EXPECT_EQ(ReadFile(Output("step_trace_20260101000000.csv")), first_steps);
  ASSERT_EQ(Run(root_.string(), nullptr, "20260101000001", true).exit_code, 0);
  EXPECT_FALSE(fs::exists(Output("trace_view_20260101000000.json")));
  EXPECT_TRUE(fs::exists(Output("trace_view_20260101000001.json")));
  for (const auto& entry : fs::directory_iterator(fs::path(prof_) / "aiprof_output")) {
    if (entry.path().filename() == "analysis") continue;  // msprof-analyze names, no stamp
    EXPECT_NE(entry.path().filename().string().find("20260101000001"), std::string::npos);
  }
  EXPECT_TRUE(fs::exists(Output("analysis/step_trace_time.csv")));
  EXPECT_TRUE(fs::exists(Output("analysis/overlap_analysis.csv")));
  EXPECT_TRUE(fs::exists(Output("analysis/analysis_inputs.csv")));
}

// A PROF_* alone in a torch_npu-style result folder (what the Python API writes) is exported
// into the folder's aiprof_output/ with fixed names; two PROF_* there keep msprof's layout.
TEST_F(ExportJobTest, ResultFolderGetsFixedNamesInItsOutputDirectory) {
  const fs::path folder = root_ / "host_42_20260101000000000_aiprof_pt";
  fs::create_directories(folder);
  const fs::path prof = folder / fs::path(prof_).filename();
  fs::rename(prof_, prof);
  ASSERT_EQ(Run(folder.string()).exit_code, 0);
  EXPECT_TRUE(fs::exists(folder / "aiprof_output" / "trace_view.json"));
  EXPECT_TRUE(fs::exists(folder / "aiprof_output" / "step_trace.csv"));
  // torch_npu's analysis deliverable sits beside trace_view.json (ASCEND_PROFILER_OUTPUT).
  EXPECT_TRUE(fs::exists(folder / "aiprof_output" / "step_trace_time.csv"));
  EXPECT_FALSE(fs::exists(folder / "aiprof_output" / "analysis" / "step_trace_time.csv"));
  EXPECT_TRUE(fs::exists(folder / "aiprof_output" / "analysis" / "analysis_inputs.csv"));
  EXPECT_FALSE(fs::exists(prof / "aiprof_output"));
  ExportOptions db;
  db.output = folder.string();
  db.type = ExportType::kDb;
  std::ostringstream out, err;
  ASSERT_EQ(RunExport(db, out, err).exit_code, 0) << err.str();
  EXPECT_TRUE(fs::exists(folder / "aiprof_output" / "aiprof_pytorch_profiler.db"));

  fs::copy(prof, folder / "PROF_000002_20260101000000000_SECONDSECONDSECO",
           fs::copy_options::recursive);
  ASSERT_EQ(Run(folder.string()).exit_code, 0);
  EXPECT_TRUE(fs::exists(prof / "aiprof_output" / "trace_view_20260101000000.json"));
}

TEST_F(ExportJobTest, QueryDescribesEachProfDir) {
  std::ostringstream out, err;
  std::vector<QueryRow> rows;
  ASSERT_EQ(RunQuery({root_.string()}, out, err, &rows), 0) << err.str();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].job_info, "python3 train.py");
  EXPECT_EQ(rows[0].device_id, "host");
  EXPECT_EQ(rows[0].dir_name, fs::path(prof_).filename().string());
  EXPECT_EQ(rows[0].iterations, 2u);
  EXPECT_EQ(rows[0].top_time_iteration, "1");  // both last 1000 ns; the first wins
  EXPECT_EQ(rows[0].rank_id, "0");
  EXPECT_NE(out.str().find("Top Time Iteration"), std::string::npos);
}

TEST_F(ExportJobTest, CommandLineExitCodes) {
  const char* build = std::getenv("AIPROF_BUILD_DIR");
  if (build == nullptr) GTEST_SKIP() << "AIPROF_BUILD_DIR not set (run through ctest)";
  std::string cli = std::string(build) + "/bin/aiprof-export-testcli";
  auto run = [&](const std::string& args) {
    int status = std::system((cli + " " + args + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run("export --output=" + root_.string()), 0);
  EXPECT_EQ(run("export --output=" + root_.string() + " --type=db --clear=on"), 0);
  EXPECT_EQ(run("export --output=" + (root_ / "missing").string()), 2);
  EXPECT_EQ(run("export --output=" + root_.string() + " --iteration-id=x"), 2);
  EXPECT_EQ(run("export --output=" + root_.string() + " --iteration-id=9"), 2);
  EXPECT_EQ(run("export --output=" + root_.string() + " --type=pdf"), 2);
  EXPECT_EQ(run("query --output=" + root_.string()), 0);
}

}  // namespace
}  // namespace aiprof::exporter
