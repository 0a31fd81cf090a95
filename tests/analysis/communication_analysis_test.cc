// The per-rank communication analysis (analysis/communication_analysis.h) and its files
// (export/analysis/communication_files.h), checked by value on hand-built models whose
// operations have known intervals: three gloo ranks arriving at different times, a
// send/recv pair, NCCL kernels beside their host ranges, one rank alone, ranks on two hosts,
// send/recv peers named by the c10d dispatcher ops, collectives in recorded sub-groups.
#include "analysis/communication_analysis.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/hand_built_model.h"
#include "analysis/steps.h"
#include "export/analysis/communication_files.h"
#include "export/sqlite/communication_analysis_tables.h"
#include "export/sqlite/database.h"
#include "model/communication.h"
#include "model/rank_identity.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// info.json's identity keys as the runtime writes them.
void SetIdentity(HandBuiltModel& b, uint32_t thread, const std::string& host, int32_t rank,
                 int32_t world_size, int32_t local_world_size) {
  model::Model& m = b.mutable_model();
  const uint32_t process = m.threads.process[thread];
  nlohmann::json metadata = {
      {"hostname", host},
      {"rank", rank},
      {"world_size", world_size},
      {"local_world_size", local_world_size},
      {"environment", {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}}}};
  m.processes.metadata[process] = metadata.dump();
  m.processes.host[process] = m.strings.Intern(host);
}

// "Input Dims"/"Input type" of a float tensor of `elements`, as record_shapes gives them.
void SetFloatInput(HandBuiltModel& b, uint32_t slice, int64_t elements) {
  model::Model& m = b.mutable_model();
  model::ArgTable& a = m.args;
  a.key.push_back(m.strings.Intern("Input Dims"));
  a.type.push_back(model::ArgType::kJson);
  a.value.push_back(m.strings.Intern("[[" + std::to_string(elements) + "]]"));
  a.key.push_back(m.strings.Intern("Input type"));
  a.type.push_back(model::ArgType::kJson);
  a.value.push_back(m.strings.Intern("[\"float\"]"));
  a.set_begin.push_back(static_cast<uint32_t>(a.key.size()));
  m.slices.args[slice] = static_cast<uint32_t>(a.sets() - 1);
}

CommunicationAnalysis Analyse(const model::Model& m) {
  return ComputeCommunicationAnalysis(m, model::ClassifyCommunication(m), StepsOf(m));
}

const CommOpTiming& OpOf(const CommunicationAnalysis& a, int32_t rank, const std::string& name) {
  for (const CommOpTiming& op : a.ops) {
    if (op.rank == rank && op.name == name) return op;
  }
  ADD_FAILURE() << "no " << name << " on rank " << rank;
  return a.ops.front();
}

// Three ranks of one host, one step each; all_reduce of 1000 floats (4000 bytes):
//   rank 0 [1000, 5000)  arrives first: waits 2000 for rank 1
//   rank 1 [3000, 5000)  arrives last:  waits 0
//   rank 2 [2000, 5100)  waits 1000
// then a barrier [6000, 6500) on every rank, arriving together.
HandBuiltModel ThreeGlooRanks() {
  HandBuiltModel b;
  const int64_t starts[] = {1000, 3000, 2000};
  const int64_t ends[] = {5000, 5000, 5100};
  for (int32_t rank = 0; rank < 3; ++rank) {
    const uint32_t thread = b.AddProcess(100 + rank, -1, rank);
    SetIdentity(b, thread, "node1", rank, 3, 3);
    b.AddStep(thread, 1, 0, 10'000);
    SetFloatInput(b, b.AddSlice(thread, starts[rank], ends[rank], "gloo:all_reduce", "cpu_op"),
                  1000);
    b.AddSlice(thread, 6000, 6500, "gloo:barrier", "cpu_op");
  }
  return b;
}

TEST(CommunicationAnalysisTest, WaitIsTheTimeBeforeTheLastRankArrives) {
  const HandBuiltModel b = ThreeGlooRanks();
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.ops.size(), 6u);
  EXPECT_EQ(a.wait_source, WaitSource::kPeers);
  EXPECT_EQ(a.wait_note, "");
  ASSERT_EQ(a.ranks.size(), 3u);
  EXPECT_EQ(a.ranks[2].host, "node1");

  const CommOpTiming& first = OpOf(a, 0, "gloo_allreduce_0");
  EXPECT_EQ(first.kind, CommKind::kCollective);
  EXPECT_EQ(first.group, "world");
  EXPECT_EQ(first.step, 1);
  EXPECT_EQ(first.bytes, 4000);
  EXPECT_EQ(first.transport, TransportType::kIntraHost);
  EXPECT_EQ(first.time.start_ns, 1000);
  EXPECT_EQ(first.time.elapse_ns, 4000);
  EXPECT_EQ(first.time.wait_ns, 2000);
  EXPECT_EQ(first.time.synchronization_ns, 2000);
  EXPECT_EQ(first.time.transit_ns, 2000);
  EXPECT_EQ(first.time.idle_ns, 0);
  EXPECT_DOUBLE_EQ(first.time.wait_ratio(), 0.5);
  EXPECT_DOUBLE_EQ(first.time.synchronization_ratio(), 0.5);

  const CommOpTiming& last = OpOf(a, 1, "gloo_allreduce_0");
  EXPECT_EQ(last.time.wait_ns, 0);
  EXPECT_EQ(last.time.transit_ns, 2000);
  EXPECT_DOUBLE_EQ(last.time.wait_ratio(), 0.0);

  const CommOpTiming& middle = OpOf(a, 2, "gloo_allreduce_0");
  EXPECT_EQ(middle.time.wait_ns, 1000);
  EXPECT_EQ(middle.time.transit_ns, 2100);
  // 4000 bytes over 2100 ns.
  EXPECT_DOUBLE_EQ(middle.bandwidth().bandwidth_gbps(), 4000.0 / 2100.0);

  const CommOpTiming& barrier = OpOf(a, 2, "gloo_barrier_1");
  EXPECT_EQ(barrier.sequence, 1u);
  EXPECT_EQ(barrier.time.wait_ns, 0);
  EXPECT_EQ(barrier.time.transit_ns, 500);
  EXPECT_EQ(barrier.bytes, 0);
  EXPECT_TRUE(a.matrix.empty());  // collectives: the links are not recorded
}

TEST(CommunicationAnalysisTest, OneRankAloneSaysTheWaitIsNotMeasured) {
  HandBuiltModel b;
  const uint32_t thread = b.AddProcess(100, -1, 0);
  SetIdentity(b, thread, "node1", 0, 4, 4);
  b.AddSlice(thread, 1000, 3000, "gloo:all_reduce", "cpu_op");
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.ops.size(), 1u);
  EXPECT_EQ(a.wait_source, WaitSource::kNotMeasured);
  EXPECT_NE(a.wait_note.find("no other rank"), std::string::npos) << a.wait_note;
  EXPECT_EQ(a.ops[0].step, -1);
  EXPECT_EQ(a.ops[0].time.wait_ns, 0);
  EXPECT_EQ(a.ops[0].time.transit_ns, 2000);
  EXPECT_EQ(a.ops[0].bytes, model::kCommUnknown);
  EXPECT_EQ(a.ops[0].bandwidth().transfers, 0u);
}

// The export's path: each rank analysed alone, then the wait derived across them.
TEST(CommunicationAnalysisTest, PeerWaitAcrossSeparatelyAnalysedRanks) {
  std::vector<CommOpTiming> all;
  const int64_t starts[] = {1000, 4000};
  for (int32_t rank = 0; rank < 2; ++rank) {
    HandBuiltModel b;
    const uint32_t thread = b.AddProcess(100 + rank, -1, rank);
    SetIdentity(b, thread, "node1", rank, 2, 2);
    b.AddSlice(thread, starts[rank], 5000, "gloo:all_reduce", "cpu_op");
    const CommunicationAnalysis a = Analyse(b.model());
    EXPECT_EQ(a.wait_source, WaitSource::kNotMeasured);
    all.insert(all.end(), a.ops.begin(), a.ops.end());
  }
  DerivePeerWait(all);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].wait_source, WaitSource::kPeers);
  EXPECT_EQ(all[0].time.wait_ns, 3000);
  EXPECT_EQ(all[0].time.transit_ns, 1000);
  EXPECT_EQ(all[1].time.wait_ns, 0);
}

// A world of two: rank 0 sends 8 floats [1000, 1500), rank 1 receives [600, 1500).
TEST(CommunicationAnalysisTest, SendRecvPairGivesTheMatrix) {
  HandBuiltModel b;
  const uint32_t sender = b.AddProcess(100, -1, 0);
  SetIdentity(b, sender, "node1", 0, 2, 2);
  SetFloatInput(b, b.AddSlice(sender, 1000, 1500, "gloo:send", "cpu_op"), 8);
  const uint32_t receiver = b.AddProcess(101, -1, 1);
  SetIdentity(b, receiver, "node1", 1, 2, 2);
  SetFloatInput(b, b.AddSlice(receiver, 600, 1500, "gloo:recv", "cpu_op"), 8);
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.ops.size(), 2u);
  const CommOpTiming& send = OpOf(a, 0, "gloo_send_0");
  const CommOpTiming& recv = OpOf(a, 1, "gloo_recv_0");
  EXPECT_EQ(send.kind, CommKind::kP2p);
  EXPECT_EQ(send.src_rank, 0);
  EXPECT_EQ(send.dst_rank, 1);
  EXPECT_EQ(recv.src_rank, 0);
  EXPECT_EQ(recv.dst_rank, 1);
  EXPECT_EQ(send.time.wait_ns, 0);
  EXPECT_EQ(recv.time.wait_ns, 400);
  EXPECT_EQ(recv.time.transit_ns, 500);
  ASSERT_EQ(a.matrix.size(), 2u);
  for (const CommMatrixEntry& e : a.matrix) {
    EXPECT_EQ(e.src_rank, 0);
    EXPECT_EQ(e.dst_rank, 1);
    EXPECT_EQ(e.bytes, 32);
    EXPECT_EQ(e.transit_ns, 500);
    EXPECT_DOUBLE_EQ(e.bandwidth_gbps(), 32.0 / 500.0);
    EXPECT_EQ(e.transport, TransportType::kIntraHost);
  }
}

// A world of three: the ranges do not name the peer; rank 0's send and rank 1's recv of the
// same size overlap, rank 2's recv has another size: 0 -> 1 is the only pairing.
TEST(CommunicationAnalysisTest, SendAndRecvOfUnknownPeersArePairedBySizeAndTime) {
  HandBuiltModel b;
  const int64_t elements[] = {8, 8, 4};
  const char* names[] = {"gloo:send", "gloo:recv", "gloo:recv"};
  const int64_t starts[] = {1000, 200, 300};
  for (int32_t rank = 0; rank < 3; ++rank) {
    const uint32_t thread = b.AddProcess(100 + rank, -1, rank);
    SetIdentity(b, thread, "node1", rank, 3, 3);
    b.AddSlice(thread, 10, 100, "gloo:barrier", "cpu_op");
    SetFloatInput(b, b.AddSlice(thread, starts[rank], 1500, names[rank], "cpu_op"), elements[rank]);
  }
  const CommunicationAnalysis a = Analyse(b.model());
  const CommOpTiming& send = OpOf(a, 0, "gloo_send_0");
  const CommOpTiming& recv = OpOf(a, 1, "gloo_recv_0");
  EXPECT_EQ(send.src_rank, 0);
  EXPECT_EQ(send.dst_rank, 1);
  EXPECT_EQ(recv.src_rank, 0);
  EXPECT_EQ(recv.dst_rank, 1);
  EXPECT_EQ(recv.time.wait_ns, 800);
  EXPECT_EQ(recv.transport, TransportType::kIntraHost);
  const CommOpTiming& lonely = OpOf(a, 2, "gloo_recv_0");
  EXPECT_EQ(lonely.src_rank, -1);
  EXPECT_EQ(lonely.wait_source, WaitSource::kNotMeasured);
  EXPECT_EQ(a.matrix.size(), 2u);
  EXPECT_NE(a.wait_note.find("1 of 6"), std::string::npos) << a.wait_note;
}

// NCCL-shaped data: each rank's host range "nccl:all_reduce" only enqueues; the kernel on
// its GPU is the collective. Rank 1's kernel starts 3000 ns after rank 0's.
TEST(CommunicationAnalysisTest, NcclKernelsAreTheOperationsOfTheirRank) {
  HandBuiltModel b;
  for (int32_t rank = 0; rank < 2; ++rank) {
    const uint32_t host = b.AddProcess(100 + rank, -1, rank);
    SetIdentity(b, host, rank == 0 ? "node1" : "node2", rank, 2, 1);
    b.AddSlice(host, 100, 200, "nccl:all_reduce", "cpu_op");
    const uint32_t device = b.AddProcess(rank, rank, rank);
    b.mutable_model().processes.host[b.model().threads.process[device]] =
        b.mutable_model().strings.Intern(rank == 0 ? "node1" : "node2");
    b.AddSlice(device, 1000 + 3000 * rank, 10'000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
               "kernel");
  }
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.ops.size(), 2u);
  const CommOpTiming& first = OpOf(a, 0, "nccl_allreduce_0");
  EXPECT_EQ(first.time.elapse_ns, 9000);
  EXPECT_EQ(first.time.wait_ns, 3000);
  EXPECT_EQ(first.time.transit_ns, 6000);
  EXPECT_EQ(first.transport, TransportType::kInterHost);
  EXPECT_EQ(OpOf(a, 1, "nccl_allreduce_0").time.wait_ns, 0);
}

TEST(CommunicationFilesTest, CommunicationJsonHasMsprofKeysAndTotals) {
  const HandBuiltModel b = ThreeGlooRanks();
  CommunicationAnalysis a = Analyse(b.model());
  // One rank's file, as `aiprof export` writes it after the wait was derived.
  std::erase_if(a.ops, [](const CommOpTiming& op) { return op.rank != 0; });
  RebuildFromOps(a);
  const auto json = nlohmann::ordered_json::parse(exporter::CommunicationJson(a));
  ASSERT_TRUE(json.contains("step1")) << json.dump(2);
  const auto& collective = json["step1"]["collective"];
  const auto& op = collective["gloo_allreduce_0@world"];
  const auto& time = op["Communication Time Info"];
  std::vector<std::string> keys;
  for (const auto& item : time.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
                      "Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio",
                      "Synchronization Time Ratio", "Wait Time Source"}));
  EXPECT_DOUBLE_EQ(time["Start Timestamp(us)"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(time["Elapse Time(ms)"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(time["Wait Time(ms)"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(time["Wait Time Ratio"].get<double>(), 0.5);
  EXPECT_EQ(time["Wait Time Source"], "peers");
  const auto& link = op["Communication Bandwidth Info"]["INTRA_HOST"];
  EXPECT_DOUBLE_EQ(link["Transit Size(MB)"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(link["Transit Time(ms)"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(link["Bandwidth(GB/s)"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(link["Large Packet Ratio"].get<double>(), 0.0);
  EXPECT_EQ(link["Size Distribution"]["0.004"], nlohmann::ordered_json::parse("[1, 0.002]"));
  // Total Op Info: the all_reduce (elapse 4000, wait 2000) plus the barrier (elapse 500).
  const auto& total = collective["Total Op Info"]["Communication Time Info"];
  EXPECT_DOUBLE_EQ(total["Elapse Time(ms)"].get<double>(), 0.0045);
  EXPECT_DOUBLE_EQ(total["Wait Time(ms)"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(total["Transit Time(ms)"].get<double>(), 0.0025);
  EXPECT_DOUBLE_EQ(total["Wait Time Ratio"].get<double>(), 0.4444);
  EXPECT_FALSE(json["step1"].contains("p2p"));
}

TEST(CommunicationFilesTest, MatrixJsonAndTables) {
  HandBuiltModel b;
  const uint32_t sender = b.AddProcess(100, -1, 0);
  SetIdentity(b, sender, "node1", 0, 2, 2);
  // Two sends of 8 floats: transit 500 ns then 1000 ns (the faster is top1).
  SetFloatInput(b, b.AddSlice(sender, 1000, 1500, "gloo:send", "cpu_op"), 8);
  SetFloatInput(b, b.AddSlice(sender, 2000, 3000, "gloo:send", "cpu_op"), 8);
  const CommunicationAnalysis a = Analyse(b.model());
  const auto json = nlohmann::ordered_json::parse(exporter::CommunicationMatrixJson(a));
  const auto& p2p = json["step"]["p2p"];
  ASSERT_TRUE(p2p.contains("send-top1@world")) << json.dump(2);
  EXPECT_EQ(p2p["send-top1@world"]["0-1"]["Op Name"], "gloo_send_0");
  EXPECT_EQ(p2p["send-bottom1@world"]["0-1"]["Op Name"], "gloo_send_1");
  EXPECT_EQ(p2p["send-bottom2@world"]["0-1"]["Op Name"], "gloo_send_0");
  EXPECT_FALSE(p2p.contains("send-bottom3@world"));
  const auto& total = p2p["send-total@world"]["0-1"];
  EXPECT_EQ(total["Transport Type"], "INTRA_HOST");
  EXPECT_DOUBLE_EQ(total["Transit Size(MB)"].get<double>(), 64e-6);
  EXPECT_DOUBLE_EQ(total["Transit Time(ms)"].get<double>(), 0.0015);
  EXPECT_DOUBLE_EQ(total["Bandwidth(GB/s)"].get<double>(), 64.0 / 1500.0);

  exporter::Database database;
  ASSERT_TRUE(database.Open(":memory:")) << database.error();
  std::string error;
  ASSERT_TRUE(exporter::WriteCommunicationTables(database, a, &error)) << error;
  sqlite3* db = database.handle();
  auto count = [&](const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    sqlite3_step(stmt);
    const int64_t value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
  };
  EXPECT_EQ(count("SELECT COUNT(*) FROM CommAnalyzerTime WHERE type = 'P2P'"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM CommAnalyzerBandwidth WHERE count = 1"), 2);
  EXPECT_EQ(count("SELECT COUNT(*) FROM CommAnalyzerMatrix WHERE src_rank = 0 AND dst_rank = 1"),
            2);
  EXPECT_EQ(count("SELECT CAST(elapse_time * 1e6 AS INTEGER) FROM CommAnalyzerTime "
                  "WHERE hccl_op_name = 'gloo_send_1'"),
            1000);
}

TEST(RankIdentityTest, TorchDistributedWinsAndDevicesTakeTheirHostsIdentity) {
  const auto identity = model::ReadRankIdentity(R"({"hostname": "node7", "rank": null,
      "local_rank": 1, "world_size": null, "local_world_size": 2,
      "environment": {"SLURM_JOB_ID": "42"},
      "metadata": {"distributed": {"backend": "gloo", "rank": 3, "world_size": 4,
        "process_groups": [{"name": "0", "description": "default_pg", "backend": "gloo",
                            "group_rank": 3, "ranks": [3, 1, 0, 2]}]}}})");
  EXPECT_EQ(identity.rank, 3);
  EXPECT_EQ(identity.local_rank, 1);
  EXPECT_EQ(identity.world_size, 4);
  EXPECT_EQ(identity.local_world_size, 2);
  EXPECT_EQ(identity.host, "node7");
  EXPECT_EQ(identity.backend, "gloo");
  EXPECT_EQ(identity.source, "torch.distributed");
  EXPECT_EQ(identity.job, "slurm:42");
  ASSERT_EQ(identity.groups.size(), 1u);
  EXPECT_EQ(identity.groups[0].ranks, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_FALSE(model::ReadRankIdentity("not json").known());

  HandBuiltModel b;
  SetIdentity(b, b.AddProcess(100, -1, 5), "node1", 5, 8, 4);
  const uint32_t device = b.AddProcess(0, 0, 5);
  b.mutable_model().processes.host[b.model().threads.process[device]] =
      b.mutable_model().strings.Intern("node1");
  const std::vector<model::RankIdentity> all = model::RankIdentities(b.model());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].rank, 5);
  EXPECT_EQ(all[1].world_size, 8);
  EXPECT_EQ(all[1].job, "10.0.0.1:29500");
}

// The c10d dispatcher op around a backend send/recv range: its "Concrete Inputs" (tensors,
// process group, peer rank, tag) as record_shapes gives them.
void SetConcreteInputs(HandBuiltModel& b, uint32_t slice, int32_t peer) {
  model::Model& m = b.mutable_model();
  model::ArgTable& a = m.args;
  a.key.push_back(m.strings.Intern("Concrete Inputs"));
  a.type.push_back(model::ArgType::kJson);
  a.value.push_back(m.strings.Intern("[\"\", \"\", \"" + std::to_string(peer) + "\", \"0\"]"));
  a.set_begin.push_back(static_cast<uint32_t>(a.key.size()));
  m.slices.args[slice] = static_cast<uint32_t>(a.sets() - 1);
}

// Two pipelines of a 4-rank world send at the same time, with the same size: 0 → 2 and
// 1 → 3. Sizes and times cannot pair them (two receivers for each send); the c10d ops'
// peer arguments do. The backend ranges run on the work thread, starting inside the op.
TEST(CommunicationAnalysisTest, SendRecvPeersComeFromTheDispatcherOps) {
  HandBuiltModel b;
  for (int32_t rank = 0; rank < 4; ++rank) {
    const uint32_t thread = b.AddProcess(100 + rank, -1, rank);
    SetIdentity(b, thread, "node1", rank, 4, 4);
    const uint32_t work = b.AddThread(b.model().threads.process[thread], 900 + rank);
    const bool sends = rank < 2;
    const int32_t peer = sends ? rank + 2 : rank - 2;
    const int64_t start = sends ? 2000 : 1000;  // the receivers wait 1000 for the senders
    SetConcreteInputs(
        b, b.AddSlice(thread, start, start + 300, sends ? "c10d::send" : "c10d::recv_", "cpu_op"),
        peer);
    SetFloatInput(
        b, b.AddSlice(work, start + 100, 3500, sends ? "gloo:send" : "gloo:recv", "cpu_op"), 8);
  }
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.matrix.size(), 4u);
  for (const CommOpTiming& op : a.ops) {
    const int32_t sender = op.rank < 2 ? op.rank : op.rank - 2;
    EXPECT_EQ(op.src_rank, sender) << op.rank;
    EXPECT_EQ(op.dst_rank, sender + 2) << op.rank;
    EXPECT_EQ(op.wait_source, WaitSource::kPeers) << op.rank;
    // The recv (from 1100) waits for its sender's start (2100).
    EXPECT_EQ(op.time.wait_ns, op.rank < 2 ? 0 : 1000) << op.rank;
  }
}

// A torch.distributed call on a sub-group as the Python package records it (a range with
// Kineto's "Process Group Name" around the call).
void AddGroupCall(HandBuiltModel& b, uint32_t thread, int64_t ts, int64_t end,
                  const std::string& group) {
  model::Model& m = b.mutable_model();
  const uint32_t slice =
      b.AddSlice(thread, ts, end, "torch.distributed (process group)", "python_function");
  m.args.key.push_back(m.strings.Intern("Process Group Name"));
  m.args.type.push_back(model::ArgType::kString);
  m.args.value.push_back(m.strings.Intern(group));
  m.args.set_begin.push_back(static_cast<uint32_t>(m.args.key.size()));
  m.slices.args[slice] = static_cast<uint32_t>(m.args.sets() - 1);
}

// Two data-parallel groups of a 4-rank pipeline job, "3" = (0, 1) and "4" = (2, 3), recorded
// in each rank's identity. Ranks 2 and 3 issue two all_reduces, ranks 0 and 1 one, each in
// its group (the backend range on a worker thread, inside the call), then every rank one
// world barrier. Group (2, 3)'s first all_reduce: rank 2 at 1000, rank 3 at 1500; group
// (0, 1)'s: rank 0 at 3000, rank 1 at 3200.
TEST(CommunicationAnalysisTest, CollectivesArePairedWithinTheirRecordedGroup) {
  HandBuiltModel b;
  for (int32_t rank = 0; rank < 4; ++rank) {
    const uint32_t thread = b.AddProcess(100 + rank, -1, rank);
    const std::string group = rank < 2 ? "3" : "4";
    const std::vector<int32_t> members =
        rank < 2 ? std::vector<int32_t>{0, 1} : std::vector<int32_t>{2, 3};
    nlohmann::json metadata = {
        {"hostname", "node1"},
        {"rank", rank},
        {"world_size", 4},
        {"local_world_size", 4},
        {"environment", {{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}}},
        {"metadata",
         {{"distributed",
           {{"rank", rank},
            {"world_size", 4},
            {"process_groups",
             {{{"name", "0"}, {"description", "default_pg"}, {"ranks", {0, 1, 2, 3}}},
              {{"name", group}, {"ranks", members}}}}}}}}};
    model::Model& m = b.mutable_model();
    m.processes.metadata[m.threads.process[thread]] = metadata.dump();
    const uint32_t work = b.AddThread(m.threads.process[thread], 900 + rank);
    const std::vector<int64_t> starts = rank == 0   ? std::vector<int64_t>{3000}
                                        : rank == 1 ? std::vector<int64_t>{3200}
                                        : rank == 2 ? std::vector<int64_t>{1000, 5000}
                                                    : std::vector<int64_t>{1500, 5600};
    for (int64_t start : starts) {
      AddGroupCall(b, thread, start - 50, start + 2000, group);
      SetFloatInput(
          b, b.AddSlice(work, start, start + 1000 + (rank % 2) * 500, "gloo:all_reduce", "cpu_op"),
          16);
    }
    b.AddSlice(work, 8000 + rank * 100, 9000, "gloo:barrier", "cpu_op");
  }
  const CommunicationAnalysis a = Analyse(b.model());
  ASSERT_EQ(a.ops.size(), 10u);
  for (const CommOpTiming& op : a.ops) EXPECT_EQ(op.wait_source, WaitSource::kPeers) << op.key();
  // The n-th all_reduce of a group, named in it; the barrier stays in the world group.
  EXPECT_EQ(OpOf(a, 0, "gloo_allreduce_0").group, "3");
  EXPECT_EQ(OpOf(a, 3, "gloo_allreduce_1").group, "4");
  EXPECT_EQ(OpOf(a, 2, "gloo_barrier_0").group, "world");
  EXPECT_EQ(OpOf(a, 0, "gloo_allreduce_0").time.wait_ns, 200);  // for rank 1
  EXPECT_EQ(OpOf(a, 1, "gloo_allreduce_0").time.wait_ns, 0);
  EXPECT_EQ(OpOf(a, 2, "gloo_allreduce_0").time.wait_ns, 500);  // for rank 3
  EXPECT_EQ(OpOf(a, 2, "gloo_allreduce_1").time.wait_ns, 600);
  EXPECT_EQ(OpOf(a, 3, "gloo_allreduce_1").time.wait_ns, 0);
  EXPECT_EQ(OpOf(a, 0, "gloo_barrier_0").time.wait_ns, 300);
  // Every group with its ranks; all of one host.
  ASSERT_EQ(a.groups.size(), 3u);
  for (const CommGroup& group : a.groups) {
    const std::vector<int32_t> expected = group.name == "3"   ? std::vector<int32_t>{0, 1}
                                          : group.name == "4" ? std::vector<int32_t>{2, 3}
                                                              : std::vector<int32_t>{0, 1, 2, 3};
    EXPECT_EQ(group.ranks, expected) << group.name;
  }
  EXPECT_EQ(OpOf(a, 2, "gloo_allreduce_0").transport, TransportType::kIntraHost);
  // The group's size sizes the annotation.
  for (const model::CommOp& op : model::ClassifyCommunication(b.model()).ops) {
    EXPECT_EQ(op.group_size, op.type == model::CommOpType::kBarrier ? 4 : 2);
  }
}

}  // namespace
}  // namespace aiprof::analysis
