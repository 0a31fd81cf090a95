// The folder users have (issue 25 point 6, issue 28): a tensorboard_trace_handler folder
// holding one *_aiprof_pt folder per worker and window (several windows of one process), the
// Kineto traces beside them, a folder of such folders (one per rank and node). Every command
// finds every run below the given folder through the one discovery (model/discovery.h):
// analyze, export, advise, query and cluster. On main before it, each answered
// "no PROF_* directory" for these folders (model::FindProfDirs, kept below as the witness).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "export/advise_job.h"
#include "export/analyze_job.h"
#include "export/cluster/cluster_job.h"
#include "export/export_job.h"
#include "export/query.h"
#include "export/timeline/trace_json.h"
#include "model/discovery.h"
#include "model/parser.h"
#include "support/cluster_data_builder.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;

// One profiled process (pid from the cluster data, rank 0) recorded in two windows, as
// aiprof's tensorboard_trace_handler lays them out, plus the Kineto trace it writes beside
// each window, plus a torch.profiler trace of another worker.
class HandlerFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("aiprof_input_discovery_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    const fs::path staging = root_ / "staging";
    testing::ClusterDataSpec spec;
    spec.ranks = 2;
    spec.steps = 3;
    spec.ops_per_step = 4;
    testing::WriteClusterData(staging.string(), spec);
    std::vector<fs::path> profs;
    for (const auto& entry : fs::directory_iterator(staging)) profs.push_back(entry.path());
    std::sort(profs.begin(), profs.end());
    ASSERT_EQ(profs.size(), 2u);
    rank0_ = profs[0];
    rank1_ = profs[1];
    tb_ = root_ / "tb";
    for (const char* window :
         {"w0_20261128101010123_aiprof_pt", "w0_20261128101011456_aiprof_pt"}) {
      fs::create_directories(tb_ / window);
      fs::copy(rank0_, tb_ / window / rank0_.filename(), fs::copy_options::recursive);
    }
    // aiprof's drop-in writes the window's Kineto trace beside its folder: the same data.
    std::string error;
    const model::Model m = model::ParseFiles(model::ListRawFiles(rank0_.string()));
    ASSERT_TRUE(exporter::WriteTraceJson(m, (tb_ / "w0.1764325810123000000.pt.trace.json").string(),
                                         &error))
        << error;
    // A torch.profiler trace of another worker (Kineto's shape).
    std::ofstream(tb_ / "w1.1764325810999000000.pt.trace.json")
        << R"({"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000, "traceEvents": [)"
           R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 77, "tid": 77, "ts": 0, "dur": 100},)"
           R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 77, "tid": 77, "ts": 10, "dur": 50}]})";
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_, tb_, rank0_, rank1_;
};

TEST_F(HandlerFolder, EveryRunBelowIsFoundAndSaidSo) {
  std::string error;
  EXPECT_TRUE(model::FindProfDirs(tb_.string(), &error).empty())
      << "the per-command lookup of main before this change found nothing here";

  const model::InputDiscovery found = model::DiscoverRuns({tb_.string()});
  EXPECT_TRUE(found.error.empty()) << found.error;
  ASSERT_EQ(found.runs.size(), 3u) << "two windows and the other worker's trace";
  EXPECT_EQ(found.runs[0].kind, model::RunKind::kRaw);
  EXPECT_EQ(found.runs[0].worker, "w0");
  EXPECT_EQ(found.runs[1].kind, model::RunKind::kRaw);
  EXPECT_EQ(found.runs[0].pid, found.runs[1].pid);
  EXPECT_EQ(found.runs[2].kind, model::RunKind::kTrace);
  EXPECT_EQ(found.runs[2].Label(), "w1.1764325810999000000.pt.trace.json");
  EXPECT_EQ(found.runs[2].output_dir,
            (tb_ / "aiprof_output" / "w1.1764325810999000000.pt.trace").string());
  std::string notes;
  for (const std::string& note : found.notes) notes += note + "\n";
  EXPECT_NE(notes.find("has 2 runs (profiling windows); each is analysed on its own"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("1 Kineto trace(s) written by aiprof from the raw data found beside them "
                       "left out"),
            std::string::npos)
      << notes;
  // Given by itself, the aiprof-written trace is read.
  const model::InputDiscovery alone =
      model::DiscoverRuns({(tb_ / "w0.1764325810123000000.pt.trace.json").string()});
  ASSERT_EQ(alone.runs.size(), 1u);
  EXPECT_EQ(alone.runs[0].kind, model::RunKind::kTrace);
}

TEST_F(HandlerFolder, EveryCommandReadsTheFolder) {
  std::ostringstream out, err;
  exporter::AnalyzeOptions analyze;
  analyze.inputs = {tb_.string()};
  EXPECT_EQ(exporter::RunAnalyze(analyze, out, err).exit_code, 0) << err.str();
  EXPECT_NE(out.str().find("w1.1764325810999000000.pt.trace.json: analysis of 2 slices"),
            std::string::npos)
      << out.str();
  EXPECT_TRUE(fs::exists(tb_ / "aiprof_output" / "w1.1764325810999000000.pt.trace" / "analysis" /
                         "step_trace_time.csv"));

  std::vector<exporter::QueryRow> rows;
  EXPECT_EQ(exporter::RunQuery({tb_.string()}, out, err, &rows), 0) << err.str();
  EXPECT_EQ(rows.size(), 3u);

  exporter::AdviseOptions advise;
  advise.outputs = {tb_.string()};
  EXPECT_EQ(exporter::RunAdvise(advise, out, err).exit_code, 0) << err.str();

  exporter::ExportOptions export_options;
  export_options.output = tb_.string();
  export_options.timestamp = "20261128000000";
  EXPECT_EQ(exporter::RunExport(export_options, out, err).exit_code, 0) << err.str();
  EXPECT_TRUE(fs::exists(tb_ / "aiprof_output" / "w1.1764325810999000000.pt.trace" /
                         "trace_view_20261128000000.json"));
  // A trace's exports are locked in its output folder (export_lock.h), not in the user's
  // folder the trace lies in.
  EXPECT_TRUE(
      fs::exists(tb_ / "aiprof_output" / "w1.1764325810999000000.pt.trace" / ".export.lock"));
  EXPECT_FALSE(fs::exists(tb_ / ".export.lock"));
}

// Ranks in folders of their own (node/tensorboard folder/window folder/PROF_*) are a
// cluster: found four levels down, grouped by the rank their info.json names.
TEST_F(HandlerFolder, FolderOfHandlerFoldersIsACluster) {
  const fs::path job = root_ / "job";
  int rank = 0;
  for (const fs::path& prof : {rank0_, rank1_}) {
    const fs::path window = job / ("node" + std::to_string(rank)) / "tb" /
                            ("w" + std::to_string(rank) + "_20261128101010123_aiprof_pt");
    fs::create_directories(window);
    fs::copy(prof, window / prof.filename(), fs::copy_options::recursive);
    ++rank;
  }
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(job.string());
  EXPECT_TRUE(discovery.error.empty()) << discovery.error;
  ASSERT_EQ(discovery.ranks.size(), 2u);
  EXPECT_EQ(discovery.ranks[0].rank, 0);
  EXPECT_EQ(discovery.ranks[1].rank, 1);
  EXPECT_TRUE(discovery.skipped.empty());
}

// One Kineto trace per rank (each rank's run exported by aiprof's Kineto writer, the rank in
// its distributedInfo) is the same cluster as the ranks' raw runs: ranks from distributedInfo,
// the same step rows and communication operations.
TEST_F(HandlerFolder, KinetoTracesOfTheRanksAreTheSameCluster) {
  const fs::path traces = root_ / "traces";
  fs::create_directories(traces);
  int rank = 0;
  for (const fs::path& prof : {rank0_, rank1_}) {
    const model::Model m = model::ParseFiles(model::ListRawFiles(prof.string()));
    std::string error;
    ASSERT_TRUE(exporter::WriteTraceJson(
        m, (traces / ("rank" + std::to_string(rank++) + ".pt.trace.json")).string(), &error))
        << error;
  }
  auto summaries = [](const fs::path& dir) {
    const exporter::RankDiscovery discovery = exporter::DiscoverRanks(dir.string());
    EXPECT_TRUE(discovery.error.empty()) << discovery.error;
    EXPECT_TRUE(discovery.skipped.empty());
    std::vector<size_t> all(discovery.ranks.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<std::string> problems;
    auto result = exporter::SummarizeRanks(discovery.ranks, all, {1, false}, &problems, nullptr);
    EXPECT_TRUE(problems.empty());
    return result;
  };
  const auto from_traces = summaries(traces);
  const auto from_raw = summaries(root_ / "staging");
  ASSERT_EQ(from_traces.size(), 2u);
  ASSERT_EQ(from_raw.size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(from_traces[r].rank, from_raw[r].rank);
    EXPECT_EQ(from_traces[r].world_size, from_raw[r].world_size);
    EXPECT_EQ(from_traces[r].host, from_raw[r].host);
    ASSERT_EQ(from_traces[r].steps.size(), from_raw[r].steps.size());
    for (size_t i = 0; i < from_raw[r].steps.size(); ++i) {
      EXPECT_EQ(from_traces[r].steps[i].step, from_raw[r].steps[i].step);
      EXPECT_EQ(from_traces[r].steps[i].begin_ns, from_raw[r].steps[i].begin_ns);
      EXPECT_EQ(from_traces[r].steps[i].end_ns, from_raw[r].steps[i].end_ns);
    }
    ASSERT_EQ(from_traces[r].communication.size(), from_raw[r].communication.size());
    for (size_t i = 0; i < from_raw[r].communication.size(); ++i) {
      EXPECT_EQ(from_traces[r].communication[i].name, from_raw[r].communication[i].name);
    }
  }
}

}  // namespace
}  // namespace aiprof
