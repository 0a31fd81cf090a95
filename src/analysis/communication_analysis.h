// Per-rank communication analysis: msprof's `--analyze` communication.json and
// communication_matrix.json quantities for every collective and point-to-point operation
// that model::ClassifyCommunication found (gloo/NCCL/MPI/UCC backend ranges, NCCL kernels,
// NCCL NVTX ranges).
//
// Time split of one operation (msprof: Elapse = last end − first start, Wait = time waiting
// for a peer's notification, Synchronization = the wait before the first transfer,
// Idle = Elapse − Transit − Wait; ratios wait/(wait+transit), sync/(sync+transit)). The
// profiles hold one range per operation and rank, not its notify/transfer tasks, so the
// wait is the time the operation spent before its slowest peer arrived:
//   Wait            = max(start of the same operation on every rank of the group) − start
//                     (clamped to [0, Elapse]); for send/recv, the pair's other end
//   Synchronization = Wait (all of it comes before the first transfer)
//   Transit         = Elapse − Wait (every peer present: transferring and reducing)
//   Idle            = Elapse − Transit − Wait (0 in this derivation)
// The same operation on another rank is the n-th collective of the same group (every rank
// of a group issues its collectives in the same order), or the n-th send/recv between the
// same two ranks. The group is the process group the data names (model::CommOp's
// process_group, recorded around torch.distributed calls on a sub-group), else the world. It needs
// the peers' data: a model with one rank only (one PROF_* exported alone) gets
// WaitSource::kNotMeasured (Wait 0, Transit = Elapse, said so in the files); DerivePeerWait runs
// the same derivation over several ranks' operations (the cluster merge calls it on per-rank
// results).
//
// Size and bandwidth: the operation's message size (model::CommOp::bytes, nccl-tests'
// convention), Bandwidth(GB/s) = Transit Size(MB) / Transit Time(ms). Transport (link
// type): intra-host when every rank of the group (the peer, for p2p) is on this rank's
// host, inter-host when one is not (hosts from the ranks' identities); NCCL's kernels and
// NVTX ranges do not name the link (NVLink/PCIe/RDMA), so no finer type is claimed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/result_columns.h"
#include "analysis/steps.h"
#include "model/communication.h"
#include "model/model.h"
#include "model/rank_identity.h"

namespace aiprof::analysis {

enum class CommKind : uint8_t { kCollective, kP2p };
std::string_view CommKindName(CommKind kind);  // "collective", "p2p" (msprof's keys)

enum class TransportType : uint8_t { kIntraHost, kInterHost, kUnknown };
// "INTRA_HOST", "INTER_HOST", "UNKNOWN": the keys under "Communication Bandwidth Info" and
// the matrix's "Transport Type".
std::string_view TransportTypeName(TransportType type);

// How the wait was found: from the peers' start times, or not at all (no peer's data).
enum class WaitSource : uint8_t { kPeers, kNotMeasured };
std::string_view WaitSourceName(WaitSource source);  // "peers", "not measured"

// msprof's "Communication Time Info" of one operation or a sum of operations (ns).
struct CommTimeInfo {
  int64_t start_ns = 0;  // "Start Timestamp(us)": the first start
  int64_t elapse_ns = 0;
  int64_t transit_ns = 0;
  int64_t wait_ns = 0;
  int64_t synchronization_ns = 0;
  int64_t idle_ns = 0;

  double wait_ratio() const;             // wait / (wait + transit); 0 when both are 0
  double synchronization_ratio() const;  // sync / (sync + transit); 0 when both are 0
  void Add(const CommTimeInfo& other);   // sums the times, keeps the earliest start
};

// The "Communication Time Info" of communication.json and cluster_communication.json, the
// CommAnalyzerTime columns after the operation and its group, the ClusterCommunicationTime
// columns after the step, rank, operation and group, and the times of /api/communication's
// operations (ns; the start from the run's origin). msprof's table has the two ratios the
// other way round than its file, and msprof-analyze's cluster table names the elapsed time
// otherwise: those columns are described twice, once per place, one accessor each.
inline int64_t ElapseNsOf(const CommTimeInfo& t) {
  return t.elapse_ns;
}
inline double SynchronizationRatioOf(const CommTimeInfo& t) {
  return t.synchronization_ratio();
}
inline constexpr Column<CommTimeInfo> kCommTimeColumns[] = {
    {"Start Timestamp(us)", "start", "start_timestamp", ColumnUnit::kTimestampMicros,
     kEveryWriter | kClusterTables, [](const CommTimeInfo& t) { return t.start_ns; }},
    {"Elapse Time(ms)", "elapse", "elapse_time", ColumnUnit::kMilliseconds, kEveryWriter,
     ElapseNsOf},
    {"Elapse Time(ms)", "elapse", "elapsed_time", ColumnUnit::kMilliseconds, kClusterTables,
     ElapseNsOf},
    {"Transit Time(ms)", "transit", "transit_time", ColumnUnit::kMilliseconds,
     kEveryWriter | kClusterTables, [](const CommTimeInfo& t) { return t.transit_ns; }},
    {"Wait Time(ms)", "wait", "wait_time", ColumnUnit::kMilliseconds, kEveryWriter | kClusterTables,
     [](const CommTimeInfo& t) { return t.wait_ns; }},
    {"Synchronization Time(ms)", "synchronization", "synchronization_time",
     ColumnUnit::kMilliseconds, kEveryWriter | kClusterTables,
     [](const CommTimeInfo& t) { return t.synchronization_ns; }},
    {"Idle Time(ms)", "idle", "idle_time", ColumnUnit::kMilliseconds, kEveryWriter | kClusterTables,
     [](const CommTimeInfo& t) { return t.idle_ns; }},
    RealColumn<CommTimeInfo>("Synchronization Time Ratio", "synchronization_ratio",
                             "synchronization_time_ratio", ColumnUnit::kRatio,
                             kDatabase | kClusterTables, SynchronizationRatioOf),
    RealColumn<CommTimeInfo>("Wait Time Ratio", "wait_ratio", "wait_time_ratio", ColumnUnit::kRatio,
                             kEveryWriter | kClusterTables,
                             [](const CommTimeInfo& t) { return t.wait_ratio(); }),
    RealColumn<CommTimeInfo>("Synchronization Time Ratio", "synchronization_ratio",
                             "synchronization_time_ratio", ColumnUnit::kRatio, kFiles | kUi,
                             SynchronizationRatioOf),
};

// msprof's "Communication Bandwidth Info" entry of one transport type.
struct CommBandwidthInfo {
  TransportType transport = TransportType::kUnknown;
  int64_t bytes = 0;       // known sizes only
  int64_t transit_ns = 0;  // transit time of the operations with a known size
  uint64_t transfers = 0;
  uint64_t large_transfers = 0;  // above LargePacketBytes(transport)
  // "Size Distribution": message size (bytes) -> {count, total transit ns}
  std::map<int64_t, std::pair<uint64_t, int64_t>> size_distribution;

  double size_mb() const { return static_cast<double>(bytes) / 1e6; }
  double transit_ms() const { return static_cast<double>(transit_ns) / 1e6; }
  double bandwidth_gbps() const;      // MB / ms; 0 when no transit time
  double large_packet_ratio() const;  // large_transfers / transfers; 0 without transfers
  void Add(const CommBandwidthInfo& other);
};

// The "Communication Bandwidth Info" entry of communication.json and
// cluster_communication.json, and the CommAnalyzerBandwidth and ClusterCommunicationBandwidth
// columns before the size distribution (the tables have size and time the other way round
// than the files: the size is described twice, once per place, one accessor).
inline double SizeMbOf(const CommBandwidthInfo& b) {
  return b.size_mb();
}
inline constexpr Column<CommBandwidthInfo> kCommBandwidthColumns[] = {
    RealColumn<CommBandwidthInfo>("Transit Size(MB)", "size_mb", "transit_size",
                                  ColumnUnit::kMegabytes, kDatabase | kClusterTables, SizeMbOf),
    {"Transit Time(ms)", "transit", "transit_time", ColumnUnit::kMilliseconds,
     kFiles | kDatabase | kClusterTables, [](const CommBandwidthInfo& b) { return b.transit_ns; }},
    RealColumn<CommBandwidthInfo>("Transit Size(MB)", "size_mb", "transit_size",
                                  ColumnUnit::kMegabytes, kFiles, SizeMbOf),
    RealColumn<CommBandwidthInfo>("Bandwidth(GB/s)", "bandwidth", "",
                                  ColumnUnit::kGigabytesPerSecond,
                                  kFiles | kDatabase | kClusterTables,
                                  [](const CommBandwidthInfo& b) { return b.bandwidth_gbps(); }),
    RealColumn<CommBandwidthInfo>(
        "Large Packet Ratio", "large_packet_ratio", "", ColumnUnit::kRatio,
        kFiles | kDatabase | kClusterTables,
        [](const CommBandwidthInfo& b) { return b.large_packet_ratio(); }),
};

// msprof's thresholds: RDMA (network) 0.5 MB, on-node links 32 MB.
int64_t LargePacketBytes(TransportType transport);

// One communication operation on one rank.
struct CommOpTiming {
  uint32_t comm_op = model::kNoRow;  // AnalysisSet::communication.ops index; kNoRow when merged
  int32_t rank = -1;
  // "<backend>_<type>_<n>": n counts the rank's collectives in the group (the same name on
  // every rank of the group) or, for p2p, the rank's operations of that type.
  std::string name;
  // torch's name of the recorded process group ("4"); "world" when the data names none
  // (the default group, or a call the Python package did not see).
  std::string group;
  CommKind kind = CommKind::kCollective;
  model::CommOpType type = model::CommOpType::kOther;
  uint64_t sequence = 0;  // n: index among the group's collectives / the pair's p2p ops
  int32_t src_rank = -1;  // p2p: sender; collective: -1
  int32_t dst_rank = -1;  // p2p: receiver; collective: -1
  int64_t step = -1;      // step number holding the start; -1 without steps
  uint32_t loop = 0;      // that step's loop ordinal (model/steps.h)
  int64_t end_ns = 0;
  CommTimeInfo time;
  WaitSource wait_source = WaitSource::kNotMeasured;
  int64_t bytes = model::kCommUnknown;
  TransportType transport = TransportType::kUnknown;

  std::string key() const { return name + "@" + group; }  // communication.json's op key
  CommBandwidthInfo bandwidth() const;                    // this operation alone
};

// /api/communication's operation columns beside its times (kCommTimeColumns of `time`) and
// its slice (the writer's: the model's communication operation).
inline constexpr Column<CommOpTiming> kCommOpColumns[] = {
    TextColumn<CommOpTiming>("", "name", "", kUi, [](const CommOpTiming& op) { return op.name; }),
    TextColumn<CommOpTiming>("", "group", "", kUi, [](const CommOpTiming& op) { return op.group; }),
    TextColumn<CommOpTiming>(
        "", "kind", "", kUi,
        [](const CommOpTiming& op) { return std::string(CommKindName(op.kind)); }),
    TextColumn<CommOpTiming>(
        "", "type", "", kUi,
        [](const CommOpTiming& op) { return std::string(model::CommOpTypeName(op.type)); }),
    {"", "rank", "", ColumnUnit::kCount, kUi,
     [](const CommOpTiming& op) -> int64_t { return op.rank; }},
    {"", "step", "", ColumnUnit::kCount, kUi,  // -1: the run has no steps
     [](const CommOpTiming& op) { return op.step; }},
    {"", "bytes", "", ColumnUnit::kBytes, kUi, [](const CommOpTiming& op) { return op.bytes; },
     /*null_when_negative=*/true},
    RealColumn<CommOpTiming>(
        "", "bandwidth", "", ColumnUnit::kGigabytesPerSecond, kUi,
        [](const CommOpTiming& op) { return op.bandwidth().bandwidth_gbps(); }),
    TextColumn<CommOpTiming>(
        "", "transport", "", kUi,
        [](const CommOpTiming& op) { return std::string(TransportTypeName(op.transport)); }),
    TextColumn<CommOpTiming>(
        "", "wait_source", "", kUi,
        [](const CommOpTiming& op) { return std::string(WaitSourceName(op.wait_source)); }),
};

// A src→dst entry of communication_matrix.json.
struct CommMatrixEntry {
  std::string name;  // the operation (CommOpTiming::name)
  std::string group;
  CommKind kind = CommKind::kP2p;
  model::CommOpType type = model::CommOpType::kOther;
  int64_t step = -1;
  uint32_t loop = 0;
  int32_t src_rank = -1;
  int32_t dst_rank = -1;
  TransportType transport = TransportType::kUnknown;
  int64_t bytes = 0;
  int64_t transit_ns = 0;

  double bandwidth_gbps() const;  // bytes / transit ns; 0 without transit time
};

// A link of communication_matrix.json and cluster_communication_matrix.json, the
// CommAnalyzerMatrix columns after the ranks, the ClusterCommunicationMatrix columns after
// the step, operation, group and ranks (msprof-analyze's cluster table puts the transport type
// last: it is described twice, once per place, one accessor), and /api/communication's matrix
// rows (which name the operation, step and ranks as well).
inline std::string TransportOf(const CommMatrixEntry& e) {
  return std::string(TransportTypeName(e.transport));
}
inline constexpr Column<CommMatrixEntry> kCommMatrixColumns[] = {
    TextColumn<CommMatrixEntry>("", "name", "", kUi,
                                [](const CommMatrixEntry& e) { return e.name; }),
    TextColumn<CommMatrixEntry>("", "group", "", kUi,
                                [](const CommMatrixEntry& e) { return e.group; }),
    {"", "step", "", ColumnUnit::kCount, kUi, [](const CommMatrixEntry& e) { return e.step; }},
    {"", "src_rank", "", ColumnUnit::kCount, kUi,
     [](const CommMatrixEntry& e) -> int64_t { return e.src_rank; }},
    {"", "dst_rank", "", ColumnUnit::kCount, kUi,
     [](const CommMatrixEntry& e) -> int64_t { return e.dst_rank; }},
    TextColumn<CommMatrixEntry>("Transport Type", "transport_type", "", kEveryWriter, TransportOf),
    RealColumn<CommMatrixEntry>(
        "Transit Size(MB)", "transit_size", "", ColumnUnit::kMegabytes,
        kEveryWriter | kClusterTables,
        [](const CommMatrixEntry& e) { return static_cast<double>(e.bytes) / 1e6; }),
    {"Transit Time(ms)", "transit_time", "", ColumnUnit::kMilliseconds,
     kEveryWriter | kClusterTables, [](const CommMatrixEntry& e) { return e.transit_ns; }},
    RealColumn<CommMatrixEntry>("Bandwidth(GB/s)", "bandwidth", "", ColumnUnit::kGigabytesPerSecond,
                                kEveryWriter | kClusterTables,
                                [](const CommMatrixEntry& e) { return e.bandwidth_gbps(); }),
    TextColumn<CommMatrixEntry>("Transport Type", "transport_type", "", kClusterTables,
                                TransportOf),
};

// A process group the operations ran in.
struct CommGroup {
  std::string name;
  std::vector<int32_t> ranks;  // global ranks, ascending; empty when unknown
};

struct CommunicationAnalysis {
  std::vector<CommOpTiming> ops;        // by rank, then start
  std::vector<CommMatrixEntry> matrix;  // p2p ops with a known peer, sender's view
  std::vector<CommGroup> groups;
  std::vector<model::RankIdentity> ranks;             // ranks seen in the model, ascending rank
  WaitSource wait_source = WaitSource::kNotMeasured;  // kPeers when any op found its peers
  bool several_loops = false;  // steps are named "loop:number" (model/steps.h)
  // Why the wait is not measured, or what limited it, in one line ("" when measured for
  // every operation); written into the files.
  std::string wait_note;
};

CommunicationAnalysis ComputeCommunicationAnalysis(const model::Model& model,
                                                   const model::CommunicationOps& communication,
                                                   const StepList& steps);

// The peer-arrival derivation (see above) over the operations of any number of ranks:
// collectives with the same group and sequence on different ranks are one operation, and
// so are p2p operations with the same group, src_rank, dst_rank and sequence. A send and a
// recv of unknown peers (a world of more than two ranks) are paired first: the first recv
// of the same size on another rank that ends after the send started, when every such recv
// starting before that one ends is on the same rank. Sets wait,
// synchronization, transit, idle and wait_source of every operation that has a peer;
// leaves the others as they are.
void DerivePeerWait(std::vector<CommOpTiming>& ops);

// The matching DerivePeerWait uses, once send/recv peers are paired: groups of indexes into
// `ops` that are one operation on different ranks (same kind, group, src, dst and
// sequence; one type and distinct ranks, else not trusted). Operations without a peer are
// in no group. The critical path (critical_path/) joins the ranks' participations with it.
std::vector<std::vector<uint32_t>> MatchPeerOperations(const std::vector<CommOpTiming>& ops);

// Rebuilds what follows from the operations (the matrix, wait_source, wait_note), after
// DerivePeerWait changed them.
void RebuildFromOps(CommunicationAnalysis& analysis);

// Several ranks analysed one by one (one PROF_* each): the ranks of each job (the job key of
// their identities) get their wait derived together (DerivePeerWait) and their matrix and
// notes rebuilt. A job with one rank here is left as it is.
void DerivePeerWaitAcrossRanks(const std::vector<CommunicationAnalysis*>& ranks);

}  // namespace aiprof::analysis
