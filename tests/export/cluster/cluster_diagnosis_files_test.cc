// The cluster's own results as its writers spell them, from their descriptions
// (analysis/cluster/slow_ranks.h, cluster_merge.h): cluster_base_info.json, the diagnosis
// and rank tables of cluster.db and the terminal report of a hand-built result holding every
// part of the diagnosis (two hosts, slow links, stages, a divergent step outside every step,
// a rank without sources, reals that round). The expected files in testdata/ were written
// by the hand-written writers the descriptions replaced (main at bb738f5): the keys, order,
// rounding and units must stay byte for byte, with and without a parallel layout.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_report.h"

namespace aiprof::exporter {
namespace {

namespace fs = std::filesystem;
using namespace analysis::cluster;

RankInfo Rank(int32_t rank) {
  RankInfo info;
  info.rank = rank;
  info.device_id = rank == 2 ? -1 : rank;
  info.host = rank < 2 ? "hostB" : "hostA";
  info.host_uid = rank < 2 ? 0 : 1;  // the merge's numbering: by first rank
  if (rank != 1) info.sources = {"/p/PROF_" + std::to_string(rank), "/p/extra"};
  info.events = 1000u + static_cast<uint64_t>(rank);
  info.dropped_records = rank == 3 ? 3 : 0;
  info.step_source = "markers";
  return info;
}

RankVerdict Verdict(int32_t rank, bool staged) {
  RankVerdict v;
  v.rank = rank;
  v.host = rank < 2 ? "hostB" : "hostA";
  v.stage = staged ? (rank == 3 ? -1 : rank / 2) : -1;  // -1 with a layout: rank not placed
  v.steps = 5;
  v.own_ns = 12345678.987654 * (rank + 1);
  v.computing_ns = 1.0 / 3.0 * 1e7;
  v.preparing_ns = 0.4999999;
  v.free_ns = -2.5e6 / 7;
  v.communication_wait_ns = 1e9 / 3;
  v.transit_ns = 42;
  v.slow = rank == 3;
  v.reason = rank == 3 ? "compute" : "";
  v.excess_ns = 777777.77777 * (rank - 1);
  v.reason_ns = 65432.1;
  return v;
}

ClusterResult HandBuiltResult(bool staged) {
  ClusterResult r;
  r.world_size = 4;
  r.dropped_records = 3;
  r.unmatched_ops = 11;
  if (staged) {
    r.layout.known = true;
    r.layout.source = "p2p peers";
    r.layout.stages = {{0, 1}, {2, 3}};
    for (int32_t i = 0; i < 4; ++i) r.layout.positions[i] = ParallelPosition{i % 2, i / 2, 0};
  }
  for (int32_t i = 0; i < 4; ++i) {
    r.ranks.push_back(Rank(i));
    r.verdicts.push_back(Verdict(i, staged));
  }
  r.clock.same_host_end_spread_ns = 123457;
  r.clock.hosts.push_back({"hostB", 2, 0, 0, 0});
  r.clock.hosts.push_back({"hostA", 2, -1234567, 89012, 7});
  for (int32_t s = 0; staged && s < 2; ++s) {
    StageVerdict& v = r.stage_verdicts.emplace_back();
    v.stage = s;
    v.ranks = r.layout.stages[static_cast<size_t>(s)];
    v.steps = 5;
    v.own_ns = 2e7 / 3 * (s + 1);
    v.slow = s == 1;
    v.reason = s == 1 ? "data preparation" : "";
    v.excess_ns = 1e6 / 9;
    v.reason_ns = 5e5 / 7;
  }
  r.slow_links.push_back({"HCCS", 2, 12.3456789, 20.00004});
  r.slow_links.push_back({"RDMA", 0, 0.00005, 1.23456});
  DivergentStep d;
  d.step = 3;
  d.stage = staged ? 1 : -1;
  d.slowest_rank = 3;
  d.fastest_rank = 2;
  d.min_own_ns = 1234567;
  d.max_own_ns = 98765432;
  d.spread = 1.234567;
  r.divergent_steps.push_back(d);
  d.step = kNoStep;
  d.stage = staged ? 0 : -1;
  d.spread = 0.05000001;
  r.divergent_steps.push_back(d);
  return r;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The tables as the sqlite3 shell lists them (`-header -separator '|'`, NULL empty).
std::string Tables(const fs::path& db_path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string text;
  for (const char* table :
       {"ClusterBaseInfo", "HostInfo", "RankDeviceMap", "ClusterRankDiagnosis",
        "ClusterStageDiagnosis", "ClusterSlowLink", "ClusterDivergentStep", "ClusterHostClock"}) {
    text += "# " + std::string(table) + "\n";
    sqlite3_stmt* select = nullptr;
    const std::string sql = "SELECT * FROM " + std::string(table);
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &select, nullptr) != SQLITE_OK) {
      text += "(no table)\n";
      continue;
    }
    const int columns = sqlite3_column_count(select);
    for (int c = 0; c < columns; ++c)
      text += (c ? "|" : "") + std::string(sqlite3_column_name(select, c));
    text += "\n";
    while (sqlite3_step(select) == SQLITE_ROW) {
      for (int c = 0; c < columns; ++c) {
        const unsigned char* cell = sqlite3_column_text(select, c);
        text += (c ? "|" : "") + std::string(cell ? reinterpret_cast<const char*>(cell) : "");
      }
      text += "\n";
    }
    sqlite3_finalize(select);
  }
  sqlite3_close(db);
  return text;
}

void ExpectTheFilesOf(bool staged) {
  const fs::path dir =
      fs::temp_directory_path() / ("aiprof_cluster_diagnosis_" + std::to_string(::getpid()) +
                                   (staged ? "_staged" : "_unstaged"));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ClusterResult result = HandBuiltResult(staged);
  std::vector<std::string> written, errors;
  WriteClusterOutputs(result, static_cast<unsigned>(ClusterOutputs::kAll), dir.string(), &written,
                      &errors);
  EXPECT_TRUE(errors.empty());
  std::ostringstream report;
  PrintClusterReport(result, report);
  const fs::path expected =
      fs::path(AIPROF_CLUSTER_TESTDATA) / (staged ? "diagnosis_staged_" : "diagnosis_unstaged_");
  EXPECT_EQ(ReadFile(dir / "cluster_base_info.json"),
            ReadFile(expected.string() + "base_info.json"));
  EXPECT_EQ(Tables(dir / "cluster.db"), ReadFile(expected.string() + "tables.txt"));
  EXPECT_EQ(report.str(), ReadFile(expected.string() + "report.txt"));
  fs::remove_all(dir);
}

TEST(ClusterDiagnosisFilesTest, WithoutALayoutTheFilesKeepTheirKeysAndRounding) {
  ExpectTheFilesOf(false);
}

TEST(ClusterDiagnosisFilesTest, WithALayoutTheStagesAreShown) {
  ExpectTheFilesOf(true);
}

}  // namespace
}  // namespace aiprof::exporter
