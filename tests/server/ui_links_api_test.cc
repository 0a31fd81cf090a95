// The API behind the UI's links and navigation: process roles in /api/run and /api/tracks,
// instants counted per track and their details, flows with both slices, search in time or
// duration order with paging and exact names, the Operators table with self time, process
// and wall shares, each step's longest input wait, and the read-only Query tab.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/hand_built_model.h"
#include "server/ui_api.h"
#include "ui_server_fixture.h"

namespace aiprof::server {
namespace {

using analysis::testing::HandBuiltModel;

std::string Collect(const std::function<void(const JsonSink&)>& produce) {
  std::string text;
  produce([&text](std::string_view piece) {
    text += piece;
    return true;
  });
  return text;
}

// A torch-like run: the main process (pid 100) with a DataLoader wait and aten::linear ⊃
// aten::addmm in step 0, and its DataLoader worker (pid 101) collating a batch. Slices: 0 the
// step's range, 1 the wait, 2 aten::linear, 3 aten::addmm, 4 aten::stack.
model::Model TorchLikeModel() {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  b.AddStep(main, 0, 1000, 2000);
  const uint32_t wait = b.AddSlice(
      main, 1000, 1600, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "cpu_op");
  const uint32_t linear = b.AddSlice(main, 1600, 1900, "aten::linear", "cpu_op");
  const uint32_t addmm = b.AddSlice(main, 1650, 1850, "aten::addmm", "cpu_op");
  model::Model& m = b.mutable_model();
  m.slices.parent[addmm] = linear;
  m.slices.depth[addmm] = 1;
  m.slices.parent[wait] = model::kNoRow;
  const uint32_t worker = b.AddProcess(101);
  b.AddSlice(worker, 1100, 1500, "aten::stack", "cpu_op");
  m.processes.metadata[0] = R"({"ppid":1,"start_realtime_ns":1})";
  m.processes.metadata[1] = R"({"ppid":100,"start_realtime_ns":2})";
  m.instants.ts.push_back(1700);
  m.instants.track.push_back(main);
  m.instants.name.push_back(m.strings.Intern("checkpoint"));
  m.instants.category.push_back(m.strings.Intern("marker"));
  m.instants.args.push_back(0);
  m.flows.id.push_back(1);
  m.flows.from_slice.push_back(linear);
  m.flows.to_slice.push_back(addmm);
  m.flows.category.push_back(m.strings.Intern("fwdbwd"));
  b.model();  // resolve the steps
  return std::move(b.mutable_model());
}

TEST(UiLinksApi, ProcessesHaveRolesAndTracksCountTheirInstants) {
  UiApi api(TorchLikeModel(), {"run"});
  const nlohmann::json run = nlohmann::json::parse(api.Run());
  ASSERT_EQ(run["processes"].size(), 2u);
  EXPECT_EQ(run["processes"][0]["role_label"], "main");
  EXPECT_EQ(run["processes"][1]["role_label"], "DataLoader worker 0");
  EXPECT_EQ(run["processes"][1]["ppid"], 100);
  ASSERT_EQ(run["steps"].size(), 1u);
  EXPECT_EQ(run["steps"][0][4], 0);  // the track of the thread that ran it
  const nlohmann::json tracks = nlohmann::json::parse(api.Tracks());
  EXPECT_EQ(tracks["processes"][0]["role"], "main");
  EXPECT_EQ(tracks["processes"][1]["role"], "DataLoader worker");
  EXPECT_EQ(tracks["processes"][0]["threads"][0]["tracks"][0]["instants"], 1);
  const nlohmann::json instant = nlohmann::json::parse(api.InstantDetails(0));
  EXPECT_EQ(instant["name"], "checkpoint");
  EXPECT_EQ(instant["ts"], 700);  // ns since the run's first event (1000)
  EXPECT_EQ(instant["role"], "main");
  EXPECT_THROW(api.InstantDetails(1), ApiError);
}

TEST(UiLinksApi, FlowsNameBothSlicesAndDetailsTheOtherEndsPlace) {
  UiApi api(TorchLikeModel(), {"run"});
  const nlohmann::json flows = nlohmann::json::parse(api.Flows({0, 2000, 1000}));
  ASSERT_EQ(flows["flows"].size(), 1u);
  EXPECT_EQ(flows["flows"][0][7], 2);  // from aten::linear
  EXPECT_EQ(flows["flows"][0][8], 3);  // to aten::addmm
  const nlohmann::json details = nlohmann::json::parse(api.SliceDetails(2));
  ASSERT_EQ(details["flows"].size(), 1u);
  EXPECT_EQ(details["flows"][0]["slice"], 3);
  EXPECT_EQ(details["flows"][0]["depth"], 1);
  EXPECT_EQ(details["flows"][0]["dur"], 200);
}

TEST(UiLinksApi, SearchPagesInTimeOrderOrLongestFirstAndMatchesExactNames) {
  UiApi api(TorchLikeModel(), {"run"});
  auto search = [&](UiApi::SearchQuery query) {
    return nlohmann::json::parse(Collect([&](const JsonSink& out) { api.Search(query, out); }));
  };
  const nlohmann::json all = search({"aten::", 0, 10, false, false});
  EXPECT_EQ(all["total"], 3);
  ASSERT_EQ(all["matches"].size(), 3u);
  EXPECT_EQ(all["matches"][0][5], "aten::stack");  // starts first (1100)
  const nlohmann::json second = search({"aten::", 1, 1, false, false});
  EXPECT_EQ(second["offset"], 1);
  ASSERT_EQ(second["matches"].size(), 1u);
  EXPECT_EQ(second["matches"][0][5], "aten::linear");
  const nlohmann::json longest = search({"aten::", 0, 1, false, true});
  EXPECT_EQ(longest["matches"][0][5], "aten::stack");  // 400 ns
  EXPECT_EQ(search({"aten::add", 0, 10, true, false})["total"], 0);
  EXPECT_EQ(search({"aten::addmm", 0, 10, true, false})["total"], 1);
  EXPECT_EQ(search({"ATEN::ADDMM", 0, 10, true, false})["total"], 0);
}

TEST(UiLinksApi, OperatorsTableHasSelfTimeProcessAndWallShares) {
  UiApi api(TorchLikeModel(), {"run"});
  const nlohmann::json table = nlohmann::json::parse(Collect(
      [&](const JsonSink& out) { api.Table(api.CheckTableRequest("operators", -1), out); }));
  ASSERT_TRUE(table["missing"].is_null());
  EXPECT_EQ(table["columns"][0], "Process");
  EXPECT_EQ(table["columns"][6], "Self Time(us)");
  EXPECT_EQ(table["wall"], 1000);
  bool saw_linear = false, saw_stack = false;
  for (size_t i = 0; i < table["rows"].size(); ++i) {
    const auto& row = table["rows"][i];
    if (row[2] == "aten::linear") {
      saw_linear = true;
      EXPECT_EQ(row[0], "100 main");
      EXPECT_EQ(row[5], 300);                         // total
      EXPECT_EQ(row[6], 100);                         // self: less aten::addmm
      EXPECT_DOUBLE_EQ(row[10].get<double>(), 30.0);  // of the run's 1000 ns
      EXPECT_DOUBLE_EQ(row[11].get<double>(), 10.0);
      EXPECT_EQ(table["slices"][i], 2);  // the longest call
    }
    if (row[2] == "aten::stack") {
      saw_stack = true;
      EXPECT_EQ(row[0], "101 DataLoader worker 0");
    }
  }
  EXPECT_TRUE(saw_linear);
  EXPECT_TRUE(saw_stack);
  const nlohmann::json kernels = nlohmann::json::parse(
      Collect([&](const JsonSink& out) { api.Table(api.CheckTableRequest("kernels", -1), out); }));
  EXPECT_TRUE(kernels["missing"].is_string());
}

// The table request is checked in one place, before the answer streams: the table's name
// and the step.
TEST(UiLinksApi, TableRequestIsCheckedOnce) {
  UiApi api(TorchLikeModel(), {"run"});
  auto status_of = [&](std::string_view name, int64_t step) {
    try {
      api.CheckTableRequest(name, step);
    } catch (const ApiError& error) {
      return error.status;
    }
    return 200;
  };
  EXPECT_EQ(status_of("secret", -1), 404);
  EXPECT_EQ(status_of("operators", static_cast<int64_t>(api.model().steps.size())), 404);
  EXPECT_EQ(status_of("kernels", -2), 400);
  EXPECT_EQ(api.CheckTableRequest("kernels", -1).kind, analysis::OperatorTableKind::kKernels);
  EXPECT_EQ(api.CheckTableRequest("operators", -1).step_id, model::kNoRow);
}

TEST(UiLinksApi, EachStepNamesItsLongestInputWait) {
  UiApi api(TorchLikeModel(), {"run"});
  const nlohmann::json summary = nlohmann::json::parse(api.analysis().Summary(0));
  ASSERT_FALSE(summary["step_breakdown"].empty());
  EXPECT_EQ(summary["step_breakdown"][0]["wait_slice"], 1);  // the DataLoader fetch
  const nlohmann::json dataprep = nlohmann::json::parse(api.analysis().DataPreparation());
  ASSERT_EQ(dataprep["steps"].size(), 1u);
  EXPECT_EQ(dataprep["steps"][0]["wait_slice"], 1);
}

TEST(UiLinksApi, QueryReadsTheExportsTablesAndNothingElse) {
  UiApi api(TorchLikeModel(), {"run"});
  const nlohmann::json names = nlohmann::json::parse(api.query().Answer(
      "SELECT s.value AS name, a.startNs FROM API a JOIN STRING_IDS s ON s.id = a.name "
      "ORDER BY a.startNs",
      100, 5000));
  EXPECT_EQ(names["columns"], nlohmann::json::parse(R"(["name","startNs"])"));
  ASSERT_FALSE(names["rows"].empty());
  EXPECT_EQ(names["truncated"], false);
  // Epoch-ns times pass 2^53 elsewhere; these hand-built ones are small, so numbers.
  EXPECT_TRUE(names["rows"][0][1].is_number());
  const nlohmann::json limited =
      nlohmann::json::parse(api.query().Answer("SELECT * FROM API", 1, 5000));
  EXPECT_EQ(limited["rows"].size(), 1u);
  EXPECT_EQ(limited["truncated"], true);
  const nlohmann::json big =
      nlohmann::json::parse(api.query().Answer("SELECT 1795894478057851700", 1, 5000));
  EXPECT_EQ(big["rows"][0][0], "1795894478057851700");
  for (const char* refused :
       {"DELETE FROM API", "DROP TABLE API", "INSERT INTO META_DATA VALUES ('a', 'b')",
        "ATTACH DATABASE '/tmp/x.db' AS other", "PRAGMA writable_schema = 1",
        "SELECT 1; DELETE FROM API", "SELEC 1", ""}) {
    EXPECT_THROW(api.query().Answer(refused, 10, 5000), ApiError) << refused;
  }
  // A query past its time limit is stopped.
  EXPECT_THROW(api.query().Answer("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                                  "SELECT count(*) FROM n",
                                  10, 50),
               ApiError);
  const nlohmann::json schema = nlohmann::json::parse(api.query().Schema());
  bool api_table = false;
  for (const auto& table : schema["tables"]) api_table |= table["name"] == "API";
  EXPECT_TRUE(api_table);
}

TEST_F(UiServerTest, NavigationRoutesCheckTheirParameters) {
  EXPECT_EQ(GetJson("/api/instant?id=0")["name"], "checkpoint");
  EXPECT_EQ(Get("/api/instant?id=99")->status, 404);
  EXPECT_EQ(Get("/api/instant")->status, 400);
  const nlohmann::json page = GetJson("/api/search?q=matmul&offset=1&limit=1");
  EXPECT_EQ(page["total"], 2);
  EXPECT_EQ(page["matches"].size(), 1u);
  EXPECT_EQ(GetJson("/api/search?q=matmul&exact=1&order=duration")["matches"][0][2], 200);
  EXPECT_EQ(Get("/api/search?q=matmul&order=size")->status, 400);
  EXPECT_EQ(Get("/api/search?q=matmul&offset=-1")->status, 400);
  const nlohmann::json rows = GetJson(
      "/api/query?q=" + httplib::detail::encode_query_param("SELECT count(*) AS n FROM API"));
  EXPECT_EQ(rows["columns"][0], "n");
  EXPECT_EQ(Get("/api/query?q=" + httplib::detail::encode_query_param("DELETE FROM API"))->status,
            400);
  EXPECT_EQ(Get("/api/query?q=SELECT%201&limit=0")->status, 400);
  EXPECT_TRUE(GetJson("/api/query_schema")["tables"].is_array());
  // The query tab needs the token like every route.
  EXPECT_EQ(Client().Get("/api/query?q=SELECT%201")->status, 403);
}

}  // namespace
}  // namespace aiprof::server
