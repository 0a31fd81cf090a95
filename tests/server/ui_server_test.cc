// The UI server over the golden data set (tests/support/golden_data.h), spoken to over
// real HTTP on 127.0.0.1.
#include "server/ui_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <tuple>

#include "analysis/critical_path/critical_path.h"
#include "dynamic/temp_dir.h"
#include "model/parser.h"
#include "server/critical_path_lane.h"
#include "support/cluster_data_builder.h"
#include "support/golden_data.h"
#include "ui_server_fixture.h"

namespace aiprof::server {
namespace {

TEST_F(UiServerTest, BindsLoopbackByDefaultWithARandomToken) {
  EXPECT_EQ(ServerOptions{}.host, "127.0.0.1");
  EXPECT_TRUE(server_->Url().starts_with("http://127.0.0.1:" + std::to_string(server_->port()) +
                                         "/?token="));
  EXPECT_EQ(server_->token().size(), 32u);
  EXPECT_NE(NewToken(), NewToken());
}

TEST_F(UiServerTest, EveryRequestNeedsTheToken) {
  for (const char* path : {"/", "/app.js", "/api/run", "/api/slices?tracks=0", "/api/communication",
                           "/api/cpu_threads", "/api/cpu_profile?thread=0"}) {
    httplib::Result res = Client().Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403) << path;
  }
  httplib::Result wrong = Client().Get("/api/run?token=0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 403);
}

TEST_F(UiServerTest, TheTokenBecomesACookieAndAHeaderWorksToo) {
  httplib::Result first = Get("/");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  const std::string cookie = first->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("aiprof_token=" + server_->token()), std::string::npos);
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  httplib::Result by_cookie =
      Client().Get("/api/run", {{"Cookie", "other=1; aiprof_token=" + server_->token()}});
  ASSERT_TRUE(by_cookie);
  EXPECT_EQ(by_cookie->status, 200);
  httplib::Result by_header =
      Client().Get("/api/run", {{"Authorization", "token " + server_->token()}});
  ASSERT_TRUE(by_header);
  EXPECT_EQ(by_header->status, 200);
}

TEST_F(UiServerTest, ServesTheFrontEndFilesOnly) {
  httplib::Result index = Get("/");
  ASSERT_TRUE(index);
  EXPECT_NE(index->body.find("<title>aiprof</title>"), std::string::npos);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  httplib::Result script = Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  httplib::Result missing = Get("/nothing.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(UiServerTest, RefusesPathTraversal) {
  const std::string token = server_->token();
  for (const std::string path : {"/../index.html", "/%2e%2e/%2e%2e/etc/passwd",
                                 "/..%2F..%2Fetc%2Fpasswd", "/web/../app.js"}) {
    const std::string line =
        RawRequest("GET " + path + "?token=" + token +
                   " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(line.find(" 400 ") != std::string::npos || line.find(" 404 ") != std::string::npos)
        << path << ": " << line;
    EXPECT_EQ(line.find(" 200 "), std::string::npos) << path;
  }
}

TEST_F(UiServerTest, RefusesMalformedRequests) {
  EXPECT_NE(RawRequest("NONSENSE\r\n\r\n").find(" 400 "), std::string::npos);
  for (const std::string path :
       {"/api/slices?tracks=0&t0=abc", "/api/slices?tracks=0&px=0", "/api/slices?tracks=0,x",
        "/api/slices?t0=10&t1=5", "/api/search?q=", "/api/slice?id=-4", "/api/counters?series=;"}) {
    httplib::Result res = Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << path << ": " << res->body;
    EXPECT_FALSE(res->body.empty()) << path;  // says what was wrong
  }
  for (const std::string path : {"/api/slices?tracks=99", "/api/slice?id=999999", "/api/nothing",
                                 "/api/table/secret", "/api/table/operators?step=77"}) {
    httplib::Result res = Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << path << ": " << res->body;
  }
}

TEST_F(UiServerTest, RunAndTracksDescribeTheGoldenData) {
  const nlohmann::json run = GetJson("/api/run");
  EXPECT_EQ(run["processes"].size(), 1u);
  EXPECT_EQ(run["processes"][0]["pid"], testing::kGoldenPid);
  EXPECT_EQ(run["drops"]["total"], 3);
  ASSERT_EQ(run["steps"].size(), 2u);
  EXPECT_EQ(run["steps"][0][0], 0);    // the step id
  EXPECT_EQ(run["steps"][0][3], "1");  // the label: the user's number
  EXPECT_EQ(run["steps"][0][2].get<int64_t>() - run["steps"][0][1].get<int64_t>(), 1000);
  EXPECT_EQ(run["step_source"], "step records (prof.step / aiprofStepBegin)");
  EXPECT_FALSE(run.contains("step_trace"));  // an analysis result: /api/analysis
  const nlohmann::json tracks = GetJson("/api/tracks");
  ASSERT_EQ(tracks["processes"].size(), 1u);
  std::set<std::string> threads;
  for (const auto& t : tracks["processes"][0]["threads"]) threads.insert(t["name"]);
  EXPECT_EQ(threads, (std::set<std::string>{"main", "worker"}));
  std::set<std::string> counters;
  for (const auto& c : tracks["processes"][0]["counters"]) counters.insert(c["name"]);
  EXPECT_EQ(counters.count("cpu_usage"), 1u);
}

TEST_F(UiServerTest, SlicesAreStreamedWithTheirNames) {
  const size_t track_count = api_->model().tracks.size();
  std::string ids;
  for (size_t i = 0; i < track_count; ++i) ids += (i ? "," : "") + std::to_string(i);
  httplib::Result res = Get("/api/slices?t0=0&t1=100000&px=1000&tracks=" + ids);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked");
  const nlohmann::json body = nlohmann::json::parse(res->body);
  std::multiset<std::string> names;
  for (const auto& track : body["tracks"]) {
    for (const auto& span : track["spans"]) names.insert(body["names"][span[5].get<size_t>()]);
  }
  EXPECT_EQ(names.count("forward"), 2u);
  EXPECT_EQ(names.count("matmul"), 2u);
  EXPECT_EQ(names.count("async"), 1u);
  size_t instants = 0;
  for (const auto& track : body["tracks"]) instants += track["instants"].size();
  EXPECT_EQ(instants, 1u);  // the "checkpoint" mark
}

TEST_F(UiServerTest, SearchDetailsRangeAndCounters) {
  const nlohmann::json found = GetJson("/api/search?q=MATMUL");
  EXPECT_EQ(found["total"], 2);
  ASSERT_EQ(found["matches"].size(), 2u);
  const int64_t slice = found["matches"][0][0];
  const nlohmann::json details = GetJson("/api/slice?id=" + std::to_string(slice));
  EXPECT_EQ(details["name"], "matmul");
  EXPECT_EQ(details["dur"], 100);
  EXPECT_EQ(details["parent"]["name"], "forward");
  const nlohmann::json range = GetJson("/api/range?t0=0&t1=100000");
  EXPECT_EQ(range["slices"], api_->model().slices.size());
  const nlohmann::json counters = GetJson("/api/counters?series=0&t0=0&t1=100000&px=100");
  ASSERT_EQ(counters["series"].size(), 1u);
  EXPECT_EQ(counters["series"][0]["points"].size(), 2u);
}

TEST_F(UiServerTest, AnalysisAnswersComeFromTheAnalysisSet) {
  const nlohmann::json summary = GetJson("/api/analysis");
  EXPECT_EQ(summary["inputs"], api_->analysis().Analyses().inputs.Describe());
  EXPECT_EQ(summary["step_breakdown"].size(),
            api_->analysis().Analyses().step_breakdown.rows.size());
  // The step trace is the set's, the rows step_trace_*.csv holds.
  const auto& trace = api_->analysis().Analyses().step_breakdown.trace;
  ASSERT_EQ(summary["step_trace"].size(), trace.size());
  ASSERT_EQ(trace.size(), 2u);
  for (size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(summary["step_trace"][i]["step"], trace[i].step);
    EXPECT_EQ(summary["step_trace"][i]["iteration"], trace[i].iteration_time_ns());
    EXPECT_EQ(summary["step_trace"][i]["fp_to_bp"], trace[i].fp_to_bp_ns());
  }
  const nlohmann::json memory = GetJson("/api/memory?px=100");
  EXPECT_EQ(memory["pools"].size(), api_->analysis().Analyses().memory.pools.size());
  const auto& top = api_->analysis().Analyses().memory.top_operators;
  ASSERT_EQ(memory["top_operators"].size(), top.size());
  for (size_t i = 0; i < top.size(); ++i) {  // keyed by analysis::kOperatorMemoryColumns
    EXPECT_EQ(memory["top_operators"][i]["name"], top[i].name);
    EXPECT_EQ(memory["top_operators"][i]["allocated_bytes"], top[i].allocated_bytes);
  }
  const nlohmann::json dataprep = GetJson("/api/dataprep");
  EXPECT_EQ(dataprep["steps"].size(), api_->analysis().Analyses().data_preparation.steps.size());
  const nlohmann::json overlap = GetJson("/api/overlap?t0=0&t1=100000&px=100");
  ASSERT_EQ(overlap["scopes"].size(), api_->analysis().Analyses().overlap.scopes.size());
  for (const auto& scope : overlap["scopes"]) EXPECT_EQ(scope["lanes"].size(), 4u);
  httplib::Result bad = Get("/api/overlap?t0=5&t1=1");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

// The Critical path view: the export's path per step (analysis::ComputeCriticalPath, every
// step solved at once), one step's pieces end to end, the path as a timeline lane, and what-if
// answers re-solved on the graph (the standard projections' figures when the same projection
// is asked for): the server solves step by step and keeps less, with the same answers.
TEST_F(UiServerTest, CriticalPathAndWhatIfComeFromTheAnalysisSet) {
  const model::Model& m = api_->model();
  const analysis::CriticalPathResult r =
      analysis::ComputeCriticalPath(m, api_->analysis().Analyses());
  ASSERT_FALSE(r.steps.empty());
  const nlohmann::json path = GetJson("/api/critical_path");
  ASSERT_EQ(path["steps"].size(), r.steps.size());
  EXPECT_EQ(path["step_ns"], r.step_ns);
  EXPECT_EQ(path["categories"].size(), static_cast<size_t>(analysis::kPathCategoryCount));
  ASSERT_EQ(path["category_keys"].size(), static_cast<size_t>(analysis::kPathCategoryCount));
  std::vector<LanePiece> all_pieces;
  std::vector<std::vector<LanePiece>> step_pieces;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const nlohmann::json& step = path["steps"][i];
    EXPECT_EQ(step["id"], i);
    int64_t sum = 0;
    for (size_t c = 0; c < path["category_keys"].size(); ++c) {
      const int64_t ns = step[path["category_keys"][c].get<std::string>()].get<int64_t>();
      EXPECT_EQ(ns, r.steps[i].attribution.ns[c]);
      sum += ns;
    }
    EXPECT_EQ(sum, r.steps[i].duration_ns());
    EXPECT_EQ(step["duration"], r.steps[i].duration_ns());
    ASSERT_EQ(step["projected"].size(), r.what_ifs.size());
    for (size_t k = 0; k < r.what_ifs.size(); ++k) {
      EXPECT_EQ(step["projected"][k], r.steps[i].projected_ns[k]);
    }
    const nlohmann::json pieces = GetJson("/api/critical_path/segments?step=" + std::to_string(i));
    ASSERT_EQ(pieces["segments"].size(), r.steps[i].segment_count);
    int64_t covered = 0;
    step_pieces.emplace_back();
    for (uint32_t k = 0; k < r.steps[i].segment_count; ++k) {
      const nlohmann::json& piece = pieces["segments"][k];
      const analysis::CriticalPathSegment expected =
          r.Segment(m, r.steps[i], r.steps[i].first_segment + k);
      EXPECT_EQ(piece["begin"], expected.begin_ns - api_->origin_ns());
      EXPECT_EQ(piece["duration"], expected.end_ns - expected.begin_ns);
      EXPECT_EQ(piece["category"], static_cast<int>(expected.category));
      covered += piece["duration"].get<int64_t>();
      step_pieces.back().push_back(
          {expected.begin_ns, expected.end_ns, static_cast<int>(expected.category)});
    }
    EXPECT_EQ(covered, r.steps[i].duration_ns());
  }
  ASSERT_EQ(path["what_ifs"].size(), r.what_ifs.size());
  for (size_t k = 0; k < r.what_ifs.size(); ++k) {
    EXPECT_EQ(path["what_ifs"][k]["projected_ns"], r.what_ifs[k].projected_ns);
    EXPECT_EQ(path["what_ifs"][k]["applicable"], r.what_ifs[k].applicable);
  }
  // The lane over the whole run and over a part of it, as every piece of the export's path
  // draws it.
  const int64_t run_ns = r.steps.back().end_ns - api_->origin_ns();
  for (const auto& [t0, t1, px] : {std::tuple<int64_t, int64_t, int64_t>{0, 100000, 100},
                                   {-10, run_ns + 10, 1000},
                                   {-10, run_ns + 10, 7},
                                   {run_ns / 3, run_ns / 2, 500}}) {
    const nlohmann::json lane = GetJson("/api/critical_path/lane?t0=" + std::to_string(t0) +
                                        "&t1=" + std::to_string(t1) + "&px=" + std::to_string(px));
    const std::string expected = CriticalPathLane::WriteFromPieces(
        t0 + api_->origin_ns(), t1 + api_->origin_ns(), std::max<int64_t>((t1 - t0) / px, 1),
        api_->origin_ns(), step_pieces.size(),
        [&](size_t step, std::vector<LanePiece>* out) { *out = step_pieces[step]; });
    EXPECT_EQ(lane, nlohmann::json::parse(expected)) << t0 << " " << t1 << " " << px;
    EXPECT_FALSE(lane["pieces"].empty());
  }
  EXPECT_EQ(GetJson("/api/analysis")["critical_path_steps"], r.steps.size());

  const nlohmann::json none = GetJson("/api/what_if");
  EXPECT_EQ(none["projected_ns"], r.step_ns);
  const analysis::WhatIfSummary* top = r.Find(analysis::WhatIfKind::kOperatorFaster);
  ASSERT_NE(top, nullptr);
  const nlohmann::json faster = GetJson("/api/what_if?op=" + top->spec.name + "&op_pct=50");
  EXPECT_EQ(faster["projected_ns"], top->projected_ns);
  ASSERT_EQ(faster["steps"].size(), r.steps.size());
  EXPECT_EQ(GetJson("/api/what_if?loader=1")["projected_ns"],
            r.Find(analysis::WhatIfKind::kDataLoadingFree)->projected_ns);
  for (const char* bad : {"/api/what_if?op_pct=101", "/api/what_if?cat0_pct=x",
                          "/api/critical_path/segments?step=99999"}) {
    httplib::Result answer = Get(bad);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 400) << bad;
  }
}

// The Overview (/api/analysis) counts the steps with a path from the step model: it solves no
// step's path; the Critical path view solves each step once, and a step's pieces once more
// (then kept).
TEST_F(UiServerTest, TheOverviewCountsStepsWithoutSolvingThePath) {
  const size_t steps =
      analysis::ComputeCriticalPath(api_->model(), api_->analysis().Analyses()).steps.size();
  ASSERT_GT(steps, 0u);
  EXPECT_EQ(GetJson("/api/analysis")["critical_path_steps"], steps);
  EXPECT_EQ(api_->critical_path().steps_solved(), 0u);
  EXPECT_EQ(GetJson("/api/critical_path")["steps"].size(), steps);
  EXPECT_EQ(api_->critical_path().steps_solved(), steps);
  GetJson("/api/critical_path/segments?step=0");
  GetJson("/api/critical_path/segments?step=0");
  EXPECT_EQ(api_->critical_path().steps_solved(), steps + 1);
}

TEST_F(UiServerTest, TablesSayWhatIsMissing) {
  const nlohmann::json kernels = GetJson("/api/table/kernels");
  EXPECT_TRUE(kernels["missing"].is_string());
  EXPECT_TRUE(kernels["rows"].empty());
}

TEST_F(UiServerTest, AdviceIsTheExportsAdviceJsonAndCompareSaysWhatItNeeds) {
  const nlohmann::json advice = GetJson("/api/advice");
  ASSERT_TRUE(advice["findings"].is_array());
  EXPECT_FALSE(advice["findings"].empty());  // every rule: triggered, passed or not evaluated
  for (const auto& finding : advice["findings"]) {
    EXPECT_TRUE(finding["rule"].is_string());
    EXPECT_TRUE(finding["status"].is_string());
  }
  EXPECT_EQ(advice["inputs"][0], api_->analysis().Analyses().inputs.Describe());
  const nlohmann::json compare = GetJson("/api/compare");
  ASSERT_TRUE(compare["missing"].is_string());
  EXPECT_NE(compare["missing"].get<std::string>().find("--compare"), std::string::npos);
}

TEST_F(UiServerTest, CommunicationSaysWhatIsMissingWithoutCollectives) {
  const nlohmann::json communication = GetJson("/api/communication");
  ASSERT_TRUE(communication["missing"].is_string());
  EXPECT_NE(communication["missing"].get<std::string>().find("No communication operations"),
            std::string::npos);
  EXPECT_TRUE(communication["ops"].empty());
  EXPECT_TRUE(communication["heatmap"].empty());
}

// Four ranks' PROF_* directories make one model: every rank's allreduce, its wait from the
// peers (the cluster writer's known figures), the wait per rank and step.
TEST_F(UiServerTest, CommunicationOfFourRanksHasTheWaitOfEveryRankAndStep) {
  testing::ClusterDataSpec spec;
  spec.ranks = 4;
  spec.steps = 3;
  spec.ops_per_step = 4;
  spec.slow_rank = 2;
  spec.slow_extra_ns = 200'000;
  const std::string parent = dir_.path() + "/cluster";
  const testing::ClusterDataTruth truth = testing::WriteClusterData(parent, spec);
  std::string error;
  std::vector<std::string> files;
  const std::vector<std::string> prof_dirs = model::FindProfDirs(parent, &error);
  ASSERT_EQ(prof_dirs.size(), 4u) << error;
  for (const std::string& prof : prof_dirs) {
    for (const std::string& file : model::ListRawFiles(prof)) files.push_back(file);
  }
  UiApi api(model::ParseFiles(files), prof_dirs);
  const nlohmann::json c = nlohmann::json::parse(api.communication().Answer());
  EXPECT_TRUE(c["missing"].is_null()) << c["missing"];
  EXPECT_EQ(c["wait_note"], "");
  EXPECT_EQ(c["ranks"], nlohmann::json({0, 1, 2, 3}));
  ASSERT_EQ(c["ops"].size(), 12u);
  ASSERT_EQ(c["heatmap"].size(), 12u);
  std::set<int64_t> steps = c["steps"].get<std::set<int64_t>>();
  ASSERT_EQ(steps.size(), 3u);
  for (const auto& op : c["ops"]) {
    const int rank = op["rank"].get<int>();
    const size_t step = static_cast<size_t>(std::distance(steps.begin(), steps.find(op["step"])));
    ASSERT_LT(step, 3u);
    EXPECT_EQ(op["kind"], "collective");
    EXPECT_EQ(op["elapse"], truth.allreduce_elapse_ns[rank][step]) << op;
    EXPECT_EQ(op["wait"], truth.allreduce_wait_ns[rank][step]) << op;
    EXPECT_EQ(op["transit"].get<int64_t>() + op["wait"].get<int64_t>(), op["elapse"].get<int64_t>())
        << op;
    EXPECT_EQ(op["wait_source"], "peers");
    EXPECT_TRUE(op["slice"].is_number()) << op;  // opens on the timeline
  }
  for (const auto& cell : c["heatmap"]) {
    const size_t step = static_cast<size_t>(std::distance(steps.begin(), steps.find(cell[1])));
    EXPECT_EQ(cell[2], truth.allreduce_wait_ns[cell[0].get<int>()][step]) << cell;
  }
  EXPECT_TRUE(c["matrix"].empty());  // an allreduce has no src → dst link
}

// One rank's directory alone: its operations are listed, and the answer says that the wait
// needs the other ranks (the analysis leaves it unmeasured).
TEST_F(UiServerTest, CommunicationOfOneRankSaysTheWaitNeedsThePeers) {
  testing::ClusterDataSpec spec;
  spec.ranks = 2;
  spec.steps = 2;
  spec.ops_per_step = 2;
  const std::string parent = dir_.path() + "/cluster";
  testing::WriteClusterData(parent, spec);
  std::string error;
  const std::vector<std::string> prof_dirs = model::FindProfDirs(parent, &error);
  ASSERT_EQ(prof_dirs.size(), 2u) << error;
  UiApi api(model::ParseProfDir(prof_dirs.front()), {prof_dirs.front()});
  const nlohmann::json c = nlohmann::json::parse(api.communication().Answer());
  ASSERT_TRUE(c["missing"].is_string());
  EXPECT_NE(c["missing"].get<std::string>().find("One rank only"), std::string::npos);
  EXPECT_FALSE(c["wait_note"].get<std::string>().empty());
  ASSERT_EQ(c["ops"].size(), 2u);
  for (const auto& op : c["ops"]) {
    EXPECT_EQ(op["wait"], 0) << op;
    EXPECT_EQ(op["transit"], op["elapse"]) << op;  // transit = elapse when not measured
    EXPECT_EQ(op["wait_source"], "not measured");
  }
}

TEST_F(UiServerTest, CpuProfileAnswersEitherKindAndRefusesOthers) {
  EXPECT_EQ(GetJson("/api/cpu_profile")["kind"], "on");
  EXPECT_EQ(GetJson("/api/cpu_profile?kind=off")["kind"], "off");
  httplib::Result bad = Get("/api/cpu_profile?kind=both");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

TEST_F(UiServerTest, CpuProfileTakesAThreadFilterAndRefusesBadRows) {
  EXPECT_TRUE(GetJson("/api/cpu_threads")["threads"].is_array());
  EXPECT_EQ(GetJson("/api/cpu_profile?kind=off&thread=0")["kind"], "off");
  EXPECT_EQ(GetJson("/api/cpu_profile?thread=0&process=0")["total"], 0);
  for (const char* path :
       {"/api/cpu_profile?thread=main", "/api/cpu_profile?thread=1,,2",
        "/api/cpu_profile?thread=4000000000", "/api/cpu_profile?process=99999"}) {
    httplib::Result bad = Get(path);
    ASSERT_TRUE(bad) << path;
    EXPECT_EQ(bad->status, 400) << path;
    EXPECT_NE(bad->body.find("parameter "), std::string::npos) << path << ": " << bad->body;
  }
}

// A run compared with itself: every name is there on both sides, nothing changed.
TEST_F(UiServerTest, ComparisonWithABaseRunListsEveryNameUnchanged) {
  const std::string base = testing::WriteGoldenProfDir(dir_.path() + "/base");
  UiApi api(model::ParseProfDir(base), {base});
  api.SetComparisonBase(model::ParseProfDir(base), {base});
  const nlohmann::json compare = nlohmann::json::parse(api.comparison().Answer());
  EXPECT_TRUE(compare["missing"].is_null());
  EXPECT_EQ(compare["base"]["label"], base);
  EXPECT_EQ(compare["base"]["steps"], 2);
  ASSERT_FALSE(compare["operators"].empty());
  for (const auto& row : compare["operators"]) {
    EXPECT_EQ(row["change"], "unchanged") << row;
    EXPECT_EQ(row["diff_total"], 0) << row;
    EXPECT_EQ(row["base_calls"], row["comparison_calls"]) << row;
    EXPECT_EQ(row["total_ratio"], 1.0) << row;
  }
  // Each figure names its columns in a step row: equal on both sides, a zero diff.
  ASSERT_EQ(compare["step_figures"].size(), 6u);
  ASSERT_FALSE(compare["steps"].empty());
  for (const auto& figure : compare["step_figures"]) {
    for (const auto& step : compare["steps"]) {
      EXPECT_EQ(step[figure["base"].get<std::string>()],
                step[figure["comparison"].get<std::string>()])
          << figure;
      EXPECT_EQ(step[figure["diff"].get<std::string>()], 0.0) << figure;
    }
  }
}

// An operator only the comparison has: its ratio is infinite, sent as null.
TEST_F(UiServerTest, ComparisonSendsAnInfiniteRatioAsNull) {
  const std::string base = testing::WriteGoldenProfDir(dir_.path() + "/base");
  UiApi api(model::ParseProfDir(base), {base});
  api.SetComparisonBase(model::Model(), {"empty"});
  const nlohmann::json compare = nlohmann::json::parse(api.comparison().Answer());
  ASSERT_FALSE(compare["operators"].empty());
  for (const auto& row : compare["operators"]) {
    EXPECT_EQ(row["change"], "added") << row;
    EXPECT_TRUE(row["total_ratio"].is_null()) << row;
    EXPECT_EQ(row["diff_total"], row["comparison_total"]) << row;
  }
}

// Brotli at cpp-httplib's quality (11) costs more than the answer itself; gzip is taken when
// offered, nothing else.
TEST_F(UiServerTest, AnswersAreGzippedNeverBrotli) {
  httplib::Result offered_all =
      Client().Get(WithToken("/api/run"), {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_TRUE(offered_all);
  EXPECT_EQ(offered_all->status, 200);
  EXPECT_EQ(offered_all->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(nlohmann::json::parse(offered_all->body)["steps"].size(), 2u);
  httplib::Result brotli_only = Client().Get(WithToken("/api/run"), {{"Accept-Encoding", "br"}});
  ASSERT_TRUE(brotli_only);
  EXPECT_EQ(brotli_only->status, 200);
  EXPECT_EQ(brotli_only->get_header_value("Content-Encoding"), "");
}

}  // namespace
}  // namespace aiprof::server
