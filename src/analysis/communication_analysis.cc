#include "analysis/communication_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace aiprof::analysis {
namespace {

using model::CommOp;
using model::CommOpType;
using model::CommSource;

constexpr const char* kWorldGroup = "world";

bool IsP2p(CommOpType type) {
  return type == CommOpType::kSend || type == CommOpType::kRecv || type == CommOpType::kSendRecv;
}

// The rank an operation belongs to; a process of unknown rank is its own unit.
int64_t UnitOf(const CommOp& op) {
  return op.rank >= 0 ? op.rank : -1 - static_cast<int64_t>(op.process);
}

// Per rank, one source of operations: NCCL kernels (the device time of a collective) over
// the host's backend ranges (only the enqueue when the backend is NCCL) over NCCL API
// ranges; gloo/MPI ranks have backend ranges only.
std::vector<uint32_t> SelectOps(const std::vector<CommOp>& communication) {
  std::unordered_map<int64_t, CommSource> best;
  for (const CommOp& op : communication) {
    auto [it, inserted] = best.try_emplace(UnitOf(op), op.source);
    const auto preference = [](CommSource source) {
      return source == CommSource::kNcclKernel ? 0 : source == CommSource::kBackendRange ? 1 : 2;
    };
    if (!inserted && preference(op.source) < preference(it->second)) it->second = op.source;
  }
  std::vector<uint32_t> selected;
  for (uint32_t i = 0; i < communication.size(); ++i) {
    if (communication[i].source == best.at(UnitOf(communication[i]))) selected.push_back(i);
  }
  return selected;
}

// The step holding `ts`: a step of the same rank when there is one, else any step. Where a
// unit's steps are disjoint (one stepping thread: the usual case) the step is found by
// binary search; overlapping steps (several stepping threads) keep the first holding step
// in list order, by a scan.
class StepLookup {
 public:
  StepLookup(const model::Model& model, const StepList& steps) : steps_(steps) {
    for (uint32_t i = 0; i < steps.steps.size(); ++i) {
      const uint32_t process = model.threads.process[steps.steps[i].thread];
      const int32_t rank = model.processes.rank[process];
      by_unit_[rank >= 0 ? rank : -1 - static_cast<int64_t>(process)].indices.push_back(i);
    }
    for (auto& [unit, list] : by_unit_) Index(list);
    for (uint32_t i = 0; i < steps.steps.size(); ++i) all_.indices.push_back(i);
    Index(all_);
  }

  // The step holding `ts`, nullptr when none does.
  const StepSpan* StepOf(int64_t unit, int64_t ts) const {
    const auto own = by_unit_.find(unit);
    if (own != by_unit_.end()) {
      const StepSpan* step = Find(own->second, ts);
      if (step != nullptr) return step;
    }
    return Find(all_, ts);
  }

 private:
  struct UnitSteps {
    std::vector<uint32_t> indices;   // list order
    std::vector<uint32_t> by_begin;  // by begin time, filled when the steps are disjoint
  };

  void Index(UnitSteps& list) const {
    std::vector<uint32_t> sorted = list.indices;
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
      return steps_.steps[a].begin_ns < steps_.steps[b].begin_ns;
    });
    for (size_t k = 1; k < sorted.size(); ++k) {
      if (steps_.steps[sorted[k]].begin_ns < steps_.steps[sorted[k - 1]].end_ns) return;
    }
    list.by_begin = std::move(sorted);
  }

  const StepSpan* Find(const UnitSteps& list, int64_t ts) const {
    if (list.by_begin.empty()) {
      for (uint32_t i : list.indices) {
        if (Holds(i, ts)) return &steps_.steps[i];
      }
      return nullptr;
    }
    auto after =
        std::upper_bound(list.by_begin.begin(), list.by_begin.end(), ts,
                         [&](int64_t t, uint32_t i) { return t < steps_.steps[i].begin_ns; });
    if (after == list.by_begin.begin() || !Holds(*(after - 1), ts)) return nullptr;
    return &steps_.steps[*(after - 1)];
  }

  bool Holds(uint32_t i, int64_t ts) const {
    return steps_.steps[i].begin_ns <= ts && ts < steps_.steps[i].end_ns;
  }
  const StepList& steps_;
  std::unordered_map<int64_t, UnitSteps> by_unit_;
  UnitSteps all_;
};

// Hosts and sizes of the ranks, for the link type.
class RankHosts {
 public:
  explicit RankHosts(const std::vector<model::RankIdentity>& ranks) {
    for (const model::RankIdentity& identity : ranks) {
      if (identity.rank >= 0 && !identity.host.empty()) host_[identity.rank] = identity.host;
      if (identity.rank >= 0) identity_[identity.rank] = &identity;
    }
  }

  // Intra-host when every peer is on `rank`'s host, inter-host when one is not. Peers of
  // unknown host: the rank's own local world size tells when it equals the world size
  // (every rank on this host) or when the group is the world and larger than the host.
  TransportType Between(int32_t rank, const std::vector<int32_t>& peers,
                        bool group_is_world) const {
    const auto own = host_.find(rank);
    const auto identity = identity_.find(rank);
    bool all_known = own != host_.end();
    for (int32_t peer : peers) {
      const auto found = host_.find(peer);
      if (found == host_.end()) {
        all_known = false;
        continue;
      }
      if (own != host_.end() && found->second != own->second) return TransportType::kInterHost;
    }
    if (all_known && !peers.empty()) return TransportType::kIntraHost;
    if (identity == identity_.end()) return TransportType::kUnknown;
    const model::RankIdentity& id = *identity->second;
    if (id.local_world_size > 0 && id.local_world_size == id.world_size) {
      return TransportType::kIntraHost;
    }
    if (group_is_world && id.local_world_size > 0 && id.local_world_size < id.world_size) {
      return TransportType::kInterHost;
    }
    return TransportType::kUnknown;
  }

 private:
  std::map<int32_t, std::string> host_;
  std::map<int32_t, const model::RankIdentity*> identity_;
};

std::vector<model::RankIdentity> RanksOf(const model::Model& model) {
  std::map<int32_t, model::RankIdentity> by_rank;
  for (model::RankIdentity& identity : model::RankIdentities(model)) {
    if (identity.rank < 0) continue;
    auto [it, inserted] = by_rank.try_emplace(identity.rank, identity);
    if (!inserted && it->second.groups.empty()) it->second.groups = identity.groups;
  }
  std::vector<model::RankIdentity> ranks;
  for (auto& [rank, identity] : by_rank) ranks.push_back(std::move(identity));
  return ranks;
}

// The ranks of the world group: torch.distributed's default group, else 0..world_size-1.
CommGroup WorldGroup(const std::vector<model::RankIdentity>& ranks) {
  CommGroup world{kWorldGroup, {}};
  int32_t world_size = -1;
  for (const model::RankIdentity& identity : ranks) {
    world_size = std::max(world_size, identity.world_size);
    for (const model::ProcessGroupInfo& group : identity.groups) {
      if (group.description == "default_pg" && world.ranks.empty()) world.ranks = group.ranks;
    }
  }
  if (world.ranks.empty()) {
    for (int32_t rank = 0; rank < world_size; ++rank) world.ranks.push_back(rank);
  }
  return world;
}

// The other end of a send/recv: the c10d dispatcher op's peer argument (model/p2p_peer.h)
// when it names another rank of the world, else a world of two names it.
int32_t PeerOf(const CommOp& op, const CommGroup& world) {
  if (op.rank < 0) return -1;
  if (op.peer >= 0 && op.peer != op.rank &&
      std::find(world.ranks.begin(), world.ranks.end(), op.peer) != world.ranks.end())
    return op.peer;
  if (world.ranks.size() != 2) return -1;
  return world.ranks[0] == op.rank ? world.ranks[1] : world.ranks[0];
}

void SetNotMeasured(CommOpTiming& op) {
  op.wait_source = WaitSource::kNotMeasured;
  op.time.wait_ns = op.time.synchronization_ns = op.time.idle_ns = 0;
  op.time.transit_ns = op.time.elapse_ns;
}

}  // namespace

std::string_view CommKindName(CommKind kind) {
  return kind == CommKind::kCollective ? "collective" : "p2p";
}

std::string_view TransportTypeName(TransportType type) {
  switch (type) {
    case TransportType::kIntraHost:
      return "INTRA_HOST";
    case TransportType::kInterHost:
      return "INTER_HOST";
    case TransportType::kUnknown:
      break;
  }
  return "UNKNOWN";
}

std::string_view WaitSourceName(WaitSource source) {
  return source == WaitSource::kPeers ? "peers" : "not measured";
}

double CommTimeInfo::wait_ratio() const {
  const int64_t total = wait_ns + transit_ns;
  return total > 0 ? static_cast<double>(wait_ns) / static_cast<double>(total) : 0.0;
}

double CommTimeInfo::synchronization_ratio() const {
  const int64_t total = synchronization_ns + transit_ns;
  return total > 0 ? static_cast<double>(synchronization_ns) / static_cast<double>(total) : 0.0;
}

void CommTimeInfo::Add(const CommTimeInfo& other) {
  const bool empty = elapse_ns == 0 && start_ns == 0;
  start_ns = empty ? other.start_ns : std::min(start_ns, other.start_ns);
  elapse_ns += other.elapse_ns;
  transit_ns += other.transit_ns;
  wait_ns += other.wait_ns;
  synchronization_ns += other.synchronization_ns;
  idle_ns += other.idle_ns;
}

double CommBandwidthInfo::bandwidth_gbps() const {
  return transit_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(transit_ns) : 0.0;
}

double CommBandwidthInfo::large_packet_ratio() const {
  return transfers > 0 ? static_cast<double>(large_transfers) / static_cast<double>(transfers)
                       : 0.0;
}

void CommBandwidthInfo::Add(const CommBandwidthInfo& other) {
  bytes += other.bytes;
  transit_ns += other.transit_ns;
  transfers += other.transfers;
  large_transfers += other.large_transfers;
  for (const auto& [size, entry] : other.size_distribution) {
    auto& mine = size_distribution[size];
    mine.first += entry.first;
    mine.second += entry.second;
  }
}

int64_t LargePacketBytes(TransportType transport) {
  return transport == TransportType::kInterHost ? 500'000 : 32'000'000;
}

CommBandwidthInfo CommOpTiming::bandwidth() const {
  CommBandwidthInfo info;
  info.transport = transport;
  if (bytes < 0) return info;  // unknown size: no transfer to count
  info.bytes = bytes;
  info.transit_ns = time.transit_ns;
  info.transfers = 1;
  info.large_transfers = bytes > LargePacketBytes(transport) ? 1 : 0;
  info.size_distribution[bytes] = {1, time.transit_ns};
  return info;
}

double CommMatrixEntry::bandwidth_gbps() const {
  return transit_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(transit_ns) : 0.0;
}

namespace {

// A send and a recv whose peers are not recorded (a world larger than two) are one
// transfer when they run on different ranks, carry the same known size and overlap in time,
// and the recv is the only such candidate of the send. Pairs found get their ranks, their
// sequence among the pair's operations and, on a rank whose world is on one host, the
// intra-host link type.
void PairUnknownPeers(std::vector<CommOpTiming>& ops) {
  std::vector<CommOpTiming*> sends, recvs;
  std::map<int32_t, bool> one_host;  // rank -> its world collectives are intra-host
  for (CommOpTiming& op : ops) {
    if (op.kind == CommKind::kCollective && op.transport == TransportType::kIntraHost) {
      one_host[op.rank] = true;
    }
    if (op.kind != CommKind::kP2p || op.src_rank >= 0 || op.rank < 0 || op.bytes < 0) continue;
    if (op.type == model::CommOpType::kSend) sends.push_back(&op);
    if (op.type == model::CommOpType::kRecv) recvs.push_back(&op);
  }
  if (sends.empty() || recvs.empty()) return;
  const auto by_start = [](const CommOpTiming* a, const CommOpTiming* b) {
    return a->time.start_ns < b->time.start_ns;
  };
  std::sort(recvs.begin(), recvs.end(), by_start);
  int64_t longest_recv = 0;
  for (const CommOpTiming* recv : recvs)
    longest_recv = std::max(longest_recv, recv->time.elapse_ns);
  bool paired_any = false;
  for (CommOpTiming* send : sends) {
    CommOpTiming* match = nullptr;
    int candidates = 0;
    // gloo's send range may end before the receiver posts its recv: a recv matches when it
    // ends after the send started. The candidates are the recvs that start before the first
    // candidate ends (later ones belong to later messages); all must be on one rank.
    CommOpTiming probe;
    probe.time.start_ns = send->time.start_ns - longest_recv;
    const auto first = std::lower_bound(recvs.begin(), recvs.end(), &probe, by_start);
    int64_t first_end = INT64_MAX;
    std::set<int32_t> receivers;
    for (auto it = first; it != recvs.end() && (*it)->time.start_ns < first_end; ++it) {
      CommOpTiming* recv = *it;
      if (recv->end_ns < send->time.start_ns || recv->src_rank >= 0) continue;
      if (recv->rank == send->rank || recv->bytes != send->bytes) continue;
      receivers.insert(recv->rank);
      if (recv->end_ns < first_end) {
        first_end = recv->end_ns;
        match = recv;
      }
    }
    candidates = static_cast<int>(receivers.size());
    if (candidates != 1) continue;
    send->src_rank = match->src_rank = send->rank;
    send->dst_rank = match->dst_rank = match->rank;
    for (CommOpTiming* op : {send, match}) {
      if (one_host[op->rank]) op->transport = TransportType::kIntraHost;
    }
    paired_any = true;
  }
  if (!paired_any) return;
  // Sequences are counted per pair again (names stay: they count the rank's operations).
  std::vector<CommOpTiming*> p2p;
  for (CommOpTiming& op : ops) {
    if (op.kind == CommKind::kP2p && op.src_rank >= 0) p2p.push_back(&op);
  }
  std::stable_sort(p2p.begin(), p2p.end(), [](const CommOpTiming* a, const CommOpTiming* b) {
    return std::tie(a->rank, a->src_rank, a->dst_rank, a->time.start_ns) <
           std::tie(b->rank, b->src_rank, b->dst_rank, b->time.start_ns);
  });
  std::map<std::tuple<int32_t, int32_t, int32_t>, uint64_t> seen;
  for (CommOpTiming* op : p2p) {
    op->sequence = seen[{op->rank, op->src_rank, op->dst_rank}]++;
  }
}

}  // namespace

std::vector<std::vector<uint32_t>> MatchPeerOperations(const std::vector<CommOpTiming>& ops) {
  // (kind, group, src, dst, sequence) -> the operation on each rank.
  using Key = std::tuple<CommKind, std::string, int32_t, int32_t, uint64_t>;
  std::map<Key, std::vector<uint32_t>> same;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const CommOpTiming& op = ops[i];
    if (op.rank < 0) continue;
    if (op.kind == CommKind::kP2p && (op.src_rank < 0 || op.dst_rank < 0)) continue;
    same[{op.kind, op.group, op.src_rank, op.dst_rank, op.sequence}].push_back(i);
  }
  std::vector<std::vector<uint32_t>> matched;
  for (auto& [key, members] : same) {
    if (members.size() < 2) continue;
    bool consistent = true;
    std::set<int32_t> ranks;
    for (uint32_t i : members) {
      // A collective's n-th operation has one type on every rank; a mismatch means the
      // ranks' sequences disagree (records dropped): no peer is trusted then. A rank seen
      // twice means two jobs' ranks were mixed.
      if (ops[i].kind == CommKind::kCollective && ops[i].type != ops[members.front()].type) {
        consistent = false;
      }
      if (!ranks.insert(ops[i].rank).second) consistent = false;
    }
    if (consistent) matched.push_back(std::move(members));
  }
  return matched;
}

void DerivePeerWait(std::vector<CommOpTiming>& ops) {
  PairUnknownPeers(ops);
  for (const std::vector<uint32_t>& members : MatchPeerOperations(ops)) {
    int64_t last_arrival = ops[members.front()].time.start_ns;
    for (uint32_t i : members) last_arrival = std::max(last_arrival, ops[i].time.start_ns);
    for (uint32_t i : members) {
      CommTimeInfo& t = ops[i].time;
      t.wait_ns = std::clamp<int64_t>(last_arrival - t.start_ns, 0, t.elapse_ns);
      t.synchronization_ns = t.wait_ns;
      t.transit_ns = t.elapse_ns - t.wait_ns;
      t.idle_ns = t.elapse_ns - t.transit_ns - t.wait_ns;
      ops[i].wait_source = WaitSource::kPeers;
    }
  }
}

CommunicationAnalysis ComputeCommunicationAnalysis(const model::Model& model,
                                                   const model::CommunicationOps& communication,
                                                   const StepList& steps) {
  CommunicationAnalysis result;
  result.ranks = RanksOf(model);
  const CommGroup world = WorldGroup(result.ranks);
  result.groups.push_back(world);
  const RankHosts hosts(result.ranks);
  const StepLookup step_lookup(model, steps);

  const std::vector<CommOp>& ops = communication.ops;
  std::vector<uint32_t> selected = SelectOps(ops);
  std::stable_sort(selected.begin(), selected.end(), [&](uint32_t a, uint32_t b) {
    const int64_t unit_a = UnitOf(ops[a]), unit_b = UnitOf(ops[b]);
    if (unit_a != unit_b) return unit_a < unit_b;
    return model.slices.ts[ops[a].slice] < model.slices.ts[ops[b].slice];
  });

  // (unit, group) -> collectives so far: the n-th collective of a group on every rank.
  std::map<std::pair<int64_t, std::string>, uint64_t> collectives_seen;
  std::map<std::tuple<int64_t, int32_t, int32_t>, uint64_t> p2p_seen;  // (unit, src, dst)
  // p2p names count the rank's operations of one type: unique whatever their peers.
  std::map<std::pair<int64_t, CommOpType>, uint64_t> p2p_named;
  std::vector<int32_t> group_peers;
  std::set<std::string> groups_listed = {world.name};
  for (uint32_t index : selected) {
    uint64_t name_index = 0;
    const CommOp& source = ops[index];
    CommOpTiming op;
    op.comm_op = index;
    op.rank = source.rank;
    // A recorded sub-group (model/process_group_call.h) is the group; else the world.
    const bool in_world = source.process_group.empty();
    op.group = in_world ? world.name : source.process_group;
    if (groups_listed.insert(op.group).second)
      result.groups.push_back({op.group, communication.GroupRanks(source)});
    op.type = source.type;
    op.kind = IsP2p(source.type) ? CommKind::kP2p : CommKind::kCollective;
    op.time.start_ns = model.slices.ts[source.slice];
    op.end_ns = model.slices.end[source.slice];
    op.time.elapse_ns = op.end_ns - op.time.start_ns;
    SetNotMeasured(op);
    op.bytes = source.bytes;
    if (const StepSpan* step = step_lookup.StepOf(UnitOf(source), op.time.start_ns)) {
      op.step = static_cast<int64_t>(step->step);
      op.loop = step->loop;
    }
    const int64_t unit = UnitOf(source);
    if (op.kind == CommKind::kCollective) {
      op.sequence = collectives_seen[{unit, op.group}]++;
      name_index = op.sequence;
      group_peers.clear();
      for (int32_t rank : in_world ? world.ranks : communication.GroupRanks(source)) {
        if (rank != op.rank) group_peers.push_back(rank);
      }
      op.transport = hosts.Between(op.rank, group_peers, in_world);
    } else {
      const int32_t peer = PeerOf(source, world);
      const bool sends = source.type == CommOpType::kSend;
      if (peer >= 0 && source.type != CommOpType::kSendRecv) {
        op.src_rank = sends ? op.rank : peer;
        op.dst_rank = sends ? peer : op.rank;
      }
      op.sequence = p2p_seen[{unit, op.src_rank, op.dst_rank}]++;
      name_index = p2p_named[{unit, source.type}]++;
      op.transport = peer >= 0 ? hosts.Between(op.rank, {peer}, false) : TransportType::kUnknown;
    }
    op.name = source.backend + "_" + std::string(model::CommOpTypeName(source.type)) + "_" +
              std::to_string(name_index);
    result.ops.push_back(std::move(op));
  }

  result.several_loops = steps.several_loops;
  DerivePeerWait(result.ops);
  RebuildFromOps(result);
  return result;
}

void RebuildFromOps(CommunicationAnalysis& result) {
  result.matrix.clear();
  result.wait_note.clear();
  result.wait_source = WaitSource::kNotMeasured;
  uint64_t measured = 0;
  for (const CommOpTiming& op : result.ops) {
    if (op.wait_source == WaitSource::kPeers) ++measured;
    if (op.kind != CommKind::kP2p || op.src_rank < 0 || op.dst_rank < 0) continue;
    CommMatrixEntry entry;
    entry.name = op.name;
    entry.group = op.group;
    entry.kind = op.kind;
    entry.type = op.type;
    entry.step = op.step;
    entry.loop = op.loop;
    entry.src_rank = op.src_rank;
    entry.dst_rank = op.dst_rank;
    entry.transport = op.transport;
    entry.bytes = std::max<int64_t>(op.bytes, 0);
    entry.transit_ns = op.time.transit_ns;
    result.matrix.push_back(std::move(entry));
  }
  if (measured > 0) result.wait_source = WaitSource::kPeers;
  if (result.ops.empty() || measured == result.ops.size()) return;
  if (measured == 0) {
    result.wait_note =
        "wait not measured: no other rank's operations in this data (export the ranks "
        "together, aiprof export <parent dir>, or run aiprof cluster); transit = elapse";
  } else {
    result.wait_note = "wait not measured for " + std::to_string(result.ops.size() - measured) +
                       " of " + std::to_string(result.ops.size()) +
                       " operation(s): no matching operation on another rank (records "
                       "dropped, a rank missing, or a send/recv peer not recorded)";
  }
}

void DerivePeerWaitAcrossRanks(const std::vector<CommunicationAnalysis*>& ranks) {
  std::map<std::string, std::vector<CommunicationAnalysis*>> jobs;
  for (CommunicationAnalysis* analysis : ranks) {
    std::string job;
    for (const model::RankIdentity& identity : analysis->ranks) {
      if (!identity.job.empty()) job = identity.job;
    }
    jobs[job].push_back(analysis);
  }
  for (auto& [job, members] : jobs) {
    if (members.size() < 2) continue;
    std::vector<CommOpTiming> all;
    for (const CommunicationAnalysis* analysis : members) {
      all.insert(all.end(), analysis->ops.begin(), analysis->ops.end());
    }
    DerivePeerWait(all);
    size_t next = 0;
    for (CommunicationAnalysis* analysis : members) {
      for (CommOpTiming& op : analysis->ops) op = all[next++];
      RebuildFromOps(*analysis);
    }
  }
}

}  // namespace aiprof::analysis
