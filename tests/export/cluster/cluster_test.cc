// aiprof cluster on generated multi-rank profiles (tests/support/cluster_data_builder.h):
// the files' shape, their figures against the numbers the generator put in, the
// diagnosis of an imbalanced job, the clock check across hosts, and the summary's bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_job.h"
#include "export/cluster/cluster_report.h"
#include "export/text_writer.h"
#include "support/cluster_data_builder.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using analysis::cluster::ClusterResult;
using analysis::cluster::RankSummary;

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("aiprof_cluster_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<RankSummary> Summaries(unsigned jobs = 2) {
    exporter::RankDiscovery discovery = exporter::DiscoverRanks(dir_.string());
    EXPECT_TRUE(discovery.error.empty()) << discovery.error;
    std::vector<size_t> all(discovery.ranks.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<std::string> problems;
    auto summaries =
        exporter::SummarizeRanks(discovery.ranks, all, {jobs, false}, &problems, nullptr);
    EXPECT_TRUE(problems.empty());
    return summaries;
  }

  fs::path dir_;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::vector<std::string>> ReadCsv(const fs::path& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

int64_t Ns(const std::string& micros) {
  return std::llround(std::stod(micros) * 1000);
}

TEST_F(ClusterTest, SixtyFourRanksFilesHaveTheirShapeAndExactSums) {
  testing::ClusterDataSpec spec;
  spec.ranks = 64;
  spec.steps = 3;
  spec.ops_per_step = 8;
  const testing::ClusterDataTruth truth = testing::WriteClusterData(dir_.string(), spec);
  ASSERT_EQ(exporter::FinishCluster(Summaries(), {dir_.string(), 7}, std::cout, std::cerr), 0);
  const fs::path out = dir_ / format::kClusterOutputDir;

  const auto csv = ReadCsv(out / "cluster_step_trace_time.csv");
  ASSERT_EQ(csv.size(), 1u + 3 * (64 + 1));
  EXPECT_EQ(csv[0], (std::vector<std::string>{
                        "Step", "Type", "Index", "Computing", "Communication(Not Overlapped)",
                        "Overlapped", "Communication", "Free", "Stage", "Bubble",
                        "Communication(Not Overlapped and Exclude Receive)", "Preparing"}));
  int64_t computing = 0, expected_computing = 0, communication = 0, expected_communication = 0;
  std::map<std::string, int> rows_per_step;
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto& row = csv[i];
    ++rows_per_step[row[0]];
    if (row[1] == "stage") {
      EXPECT_EQ(row[2].substr(0, 7), "(0, 1, ");
      continue;
    }
    ASSERT_EQ(row[1], "rank");
    const int rank = std::stoi(row[2]), step = std::stoi(row[0]) - 1;
    EXPECT_EQ(Ns(row[3]), truth.computing_ns[rank][step]) << "rank " << rank;
    EXPECT_EQ(Ns(row[6]), truth.allreduce_elapse_ns[rank][step]) << "rank " << rank;
    EXPECT_EQ(Ns(row[11]), 1000);  // Preparing: step begin to the first operator
    computing += Ns(row[3]);
    communication += Ns(row[6]);
    expected_computing += truth.computing_ns[rank][step];
    expected_communication += truth.allreduce_elapse_ns[rank][step];
  }
  EXPECT_EQ(computing, expected_computing);
  EXPECT_EQ(communication, expected_communication);
  EXPECT_EQ(rows_per_step, (std::map<std::string, int>{{"1", 65}, {"2", 65}, {"3", 65}}));

  const nlohmann::json comm = nlohmann::json::parse(ReadFile(out / "cluster_communication.json"));
  ASSERT_EQ(comm.size(), 3u);
  int64_t wait = 0, expected_wait = 0;
  for (int s = 0; s < 3; ++s) {
    const nlohmann::json& step = comm.at("step" + std::to_string(s + 1));
    ASSERT_EQ(step.size(), 1u);  // one group: the world
    EXPECT_EQ(step.begin().key().substr(0, 8), "(0, 1, 2");
    const nlohmann::json& group = step.begin().value();
    ASSERT_EQ(group.size(), 2u);  // the allreduce and "Total Op Info"
    for (const auto& [op, ranks] : group.items()) {
      ASSERT_EQ(ranks.size(), 64u) << op;
      if (op == "Total Op Info") continue;
      for (int r = 0; r < 64; ++r) {
        const nlohmann::json& time = ranks.at(std::to_string(r)).at("Communication Time Info");
        const int64_t rank_wait = std::llround(time.at("Wait Time(ms)").get<double>() * 1e6);
        EXPECT_EQ(rank_wait, truth.allreduce_wait_ns[r][s]);
        EXPECT_EQ(std::llround(time.at("Transit Time(ms)").get<double>() * 1e6), spec.transit_ns);
        wait += rank_wait;
        expected_wait += truth.allreduce_wait_ns[r][s];
      }
    }
  }
  EXPECT_EQ(wait, expected_wait);
  EXPECT_TRUE(fs::exists(out / "cluster_communication_matrix.json"));
  EXPECT_TRUE(fs::exists(out / "cluster.db"));
}

TEST_F(ClusterTest, SlowRankIsNamedWithComputeAsTheReasonAndTheOthersWait) {
  testing::ClusterDataSpec spec;
  spec.ranks = 8;
  spec.steps = 4;
  spec.slow_rank = 5;
  spec.slow_extra_ns = 2'000'000;
  const testing::ClusterDataTruth truth = testing::WriteClusterData(dir_.string(), spec);
  const ClusterResult result = analysis::cluster::MergeRankSummaries(Summaries());
  ASSERT_EQ(result.verdicts.size(), 8u);
  for (const auto& v : result.verdicts) {
    EXPECT_EQ(v.slow, v.rank == 5) << "rank " << v.rank;
    if (v.rank == 5) {
      EXPECT_EQ(v.reason, "compute");
      EXPECT_EQ(v.communication_wait_ns, 0);
    } else {
      EXPECT_DOUBLE_EQ(v.communication_wait_ns,
                       static_cast<double>(truth.allreduce_wait_ns[v.rank][0]));
      EXPECT_GT(v.communication_wait_ns, 2'000'000);
    }
  }
  ASSERT_EQ(result.divergent_steps.size(), 4u);
  for (const auto& d : result.divergent_steps) EXPECT_EQ(d.slowest_rank, 5);
  std::ostringstream report;
  exporter::PrintClusterReport(result, report);
  EXPECT_NE(report.str().find("rank 5 (node0): +"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("why: compute"), std::string::npos) << report.str();
}

TEST_F(ClusterTest, ClockOffsetBetweenHostsIsEstimatedFromTheCollectives) {
  testing::ClusterDataSpec spec;
  spec.ranks = 4;
  spec.hosts = 2;
  spec.host_clock_offset_ns = 3'000'000;
  testing::WriteClusterData(dir_.string(), spec);
  const ClusterResult result = analysis::cluster::MergeRankSummaries(Summaries());
  ASSERT_EQ(result.clock.hosts.size(), 2u);
  EXPECT_EQ(result.clock.hosts[0].host, "node0");
  EXPECT_EQ(result.clock.hosts[1].host, "node1");
  // Each rank's clock fit (ticks to realtime) rounds by tens of ns.
  EXPECT_NEAR(result.clock.hosts[1].offset_ns, 3'000'000, 1'000);
  EXPECT_LE(result.clock.hosts[1].uncertainty_ns, 1'000);
  EXPECT_EQ(result.clock.hosts[1].samples, 5u);
  for (const auto& op : result.comm_ops) {
    EXPECT_EQ(op.transport, analysis::TransportType::kInterHost);
  }
}

TEST_F(ClusterTest, SummaryBytesRoundTripAndTheSplitDoesNotChangeTheResult) {
  testing::ClusterDataSpec spec;
  spec.ranks = 6;
  testing::WriteClusterData(dir_.string(), spec);
  std::vector<RankSummary> one = Summaries(1), three = Summaries(3);
  ASSERT_EQ(one.size(), 6u);
  for (size_t i = 0; i < one.size(); ++i) {
    const std::string bytes = analysis::cluster::SerializeRankSummary(one[i]);
    EXPECT_EQ(bytes, analysis::cluster::SerializeRankSummary(three[i]));
    RankSummary back;
    std::string error;
    ASSERT_TRUE(analysis::cluster::DeserializeRankSummary(bytes, &back, &error)) << error;
    EXPECT_EQ(analysis::cluster::SerializeRankSummary(back), bytes);
    EXPECT_FALSE(analysis::cluster::DeserializeRankSummary(bytes.substr(0, bytes.size() - 3), &back,
                                                           &error));
  }
  // The recorded process groups (for the parallel layout) travel with the summary.
  RankSummary grouped = one[0];
  model::ProcessGroupInfo group;
  group.name = "3";
  group.description = "dp";
  group.backend = "gloo";
  group.group_rank = 0;
  group.ranks = {0, 1};
  grouped.process_groups.push_back(group);
  RankSummary back;
  std::string error;
  ASSERT_TRUE(analysis::cluster::DeserializeRankSummary(
      analysis::cluster::SerializeRankSummary(grouped), &back, &error))
      << error;
  ASSERT_EQ(back.process_groups.size(), 1u);
  EXPECT_EQ(back.process_groups[0].name, "3");
  EXPECT_EQ(back.process_groups[0].description, "dp");
  EXPECT_EQ(back.process_groups[0].backend, "gloo");
  EXPECT_EQ(back.process_groups[0].group_rank, 0);
  EXPECT_EQ(back.process_groups[0].ranks, (std::vector<int32_t>{0, 1}));
  // Parts of the ranks merged in another order give the same tables.
  std::vector<RankSummary> reversed(one.rbegin(), one.rend());
  const fs::path a = dir_ / "a", b = dir_ / "b";
  ASSERT_EQ(exporter::FinishCluster(one, {a.string(), 7}, std::cout, std::cerr), 0);
  ASSERT_EQ(exporter::FinishCluster(reversed, {b.string(), 7}, std::cout, std::cerr), 0);
  for (const char* file : {"cluster_step_trace_time.csv", "cluster_communication.json",
                           "cluster_communication_matrix.json", "cluster_base_info.json"}) {
    EXPECT_EQ(ReadFile(a / format::kClusterOutputDir / file),
              ReadFile(b / format::kClusterOutputDir / file))
        << file;
  }
}

// cluster_communication.json's numbers come from TextWriter::Fixed (std::to_chars) instead
// of printf: the characters must be the same, rounding, signs and zeros included.
TEST_F(ClusterTest, FixedNumbersAreThePrintfCharacters) {
  const double values[] = {0.0,        -0.0,      0.5,       1.5,          2.5,     0.0000005,
                           0.0000015,  -0.000001, 123.4565,  1e-12,        -1e-12,  999999.9999995,
                           1e15 + 0.3, 3.0 / 7.0, -22.0 / 7, 1e6 / 3.0,    0.125,   0.0625,
                           1.0e308,    -2.5e-5,   1.2345e9,  17179869.184, 0.00005, 0.00015};
  const fs::path path = dir_ / "fixed.txt";
  std::string expected;
  {
    exporter::TextWriter out;
    std::string error;
    ASSERT_TRUE(out.Open(path.string(), &error)) << error;
    for (int decimals : {3, 4, 6}) {
      for (double value : values) {
        out.Fixed(value, decimals).Char(' ');
        char text[400];
        std::snprintf(text, sizeof text, "%.*f ", decimals, value);
        expected += text;
      }
    }
    ASSERT_TRUE(out.Close()) << out.error();
  }
  EXPECT_EQ(ReadFile(path), expected);
}

TEST_F(ClusterTest, DirectoryWithoutRanksIsAClearError) {
  const exporter::RankDiscovery none = exporter::DiscoverRanks((dir_ / "missing").string());
  EXPECT_NE(none.error.find("is not a directory"), std::string::npos);
  const exporter::RankDiscovery empty = exporter::DiscoverRanks(dir_.string());
  EXPECT_NE(empty.error.find("no PROF_* directory"), std::string::npos);
}

}  // namespace
}  // namespace aiprof
