#include "analysis/cluster/rank_summary.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "model/rank_identity.h"

namespace aiprof::analysis::cluster {

namespace {

constexpr char kMagic[8] = {'A', 'I', 'P', 'R', 'S', 'U', 'M', '1'};
// 2: the process groups; 3: loops, input wait in Free; 4: the steps' own critical paths
constexpr uint32_t kVersion = 4;

int64_t Busy(const std::vector<Interval>& intervals) {
  int64_t total = 0;
  for (const Interval& interval : intervals) total += interval.end - interval.begin;
  return total;
}

// The scope that stands for the rank: among the scopes of this rank (or of unknown rank,
// when the metadata never said), the busiest one. A rank's DataLoader workers are host
// processes of the same rank but do little of the step's compute.
int FindRankScope(const OverlapResult& overlap, int32_t rank) {
  int best = -1;
  int64_t best_busy = -1;
  for (size_t i = 0; i < overlap.scopes.size(); ++i) {
    const OverlapScope& scope = overlap.scopes[i];
    if (scope.rank != rank && scope.rank != -1) continue;
    const int64_t busy = Busy(scope.computing) + Busy(scope.communication);
    if (busy > best_busy) {
      best_busy = busy;
      best = static_cast<int>(i);
    }
  }
  return best;
}

class ByteWriter {
 public:
  void U32(uint32_t v) { Raw(&v, sizeof v); }
  void I32(int32_t v) { Raw(&v, sizeof v); }
  void U64(uint64_t v) { Raw(&v, sizeof v); }
  void I64(int64_t v) { Raw(&v, sizeof v); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    bytes_.append(s);
  }
  void Raw(const void* data, size_t size) {
    bytes_.append(static_cast<const char*>(data), size);  // x86-64/aarch64: little-endian
  }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  bool U32(uint32_t* v) { return Raw(v, sizeof *v); }
  bool I32(int32_t* v) { return Raw(v, sizeof *v); }
  bool U64(uint64_t* v) { return Raw(v, sizeof *v); }
  bool I64(int64_t* v) { return Raw(v, sizeof *v); }
  bool Str(std::string* s) {
    uint32_t size = 0;
    if (!U32(&size) || size > bytes_.size() - offset_) return false;
    s->assign(bytes_, offset_, size);
    offset_ += size;
    return true;
  }
  // A count of elements of at least `min_size` bytes each, checked against what is left.
  bool Count(uint64_t min_size, uint64_t* count) {
    return U64(count) && *count <= (bytes_.size() - offset_) / min_size;
  }
  bool Raw(void* data, size_t size) {
    if (size > bytes_.size() - offset_) return false;
    std::memcpy(data, bytes_.data() + offset_, size);
    offset_ += size;
    return true;
  }
  bool AtEnd() const { return offset_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  size_t offset_ = 0;
};

// Each step's own critical path of the rank, matched by (loop, number).
void AddOwnPaths(const CriticalPathResult& path, int32_t rank, std::vector<RankStep>& steps) {
  if (!path.computed || path.whole_run) return;
  std::map<StepKey, const CriticalPathRank*> own;
  for (const CriticalPathStep& step : path.steps) {
    for (uint32_t i = step.first_rank; i < step.first_rank + step.rank_count; ++i) {
      const CriticalPathRank& member = path.ranks[i];
      if (member.rank == rank || member.rank == -1) {
        own.emplace(StepKey{step.loop, static_cast<int64_t>(step.step)}, &member);
      }
    }
  }
  for (RankStep& step : steps) {
    const auto found = own.find(KeyOf(step));
    if (found == own.end()) continue;
    step.has_path = true;
    step.path_begin_ns = found->second->begin_ns;
    step.path_end_ns = found->second->end_ns;
    step.path = found->second->own;
  }
}

}  // namespace

RankSummary BuildRankSummary(const model::Model& model, const AnalysisSet& set, int32_t rank,
                             const std::vector<std::string>& sources) {
  RankSummary summary;
  summary.rank = rank;
  summary.sources = sources;
  summary.step_source = std::string(StepSourceName(set.steps.source));
  summary.events = model.slices.size();
  summary.dropped_records = model.drops.total();
  for (const model::RankIdentity& identity : model::RankIdentities(model)) {
    if (identity.rank != rank && identity.rank != -1) continue;
    summary.local_rank = identity.local_rank;
    summary.world_size = identity.world_size;
    summary.host = identity.host;
    summary.process_groups = identity.groups;
    if (identity.rank == rank) break;  // prefer the rank's own process over unknown ones
  }

  const int scope = FindRankScope(set.overlap, rank);
  if (scope >= 0) summary.device_id = set.overlap.scopes[scope].device_id;
  for (const StepBreakdownRow& row : set.step_breakdown.rows) {
    if (static_cast<int>(row.scope) != scope) continue;
    RankStep step;
    step.step = row.step_id == model::kNoRow ? kNoStep : static_cast<int64_t>(row.step);
    step.loop = row.loop;
    step.begin_ns = row.begin_ns;
    step.end_ns = row.end_ns;
    static_cast<StepParts&>(step) = row;
    summary.steps.push_back(step);
  }
  std::sort(summary.steps.begin(), summary.steps.end(),
            [](const RankStep& a, const RankStep& b) { return a.begin_ns < b.begin_ns; });
  AddOwnPaths(set.critical_path, rank, summary.steps);

  const uint32_t scope_process = scope >= 0 ? set.overlap.scopes[scope].process : model::kNoRow;
  for (const CommOpTiming& op : set.communication_analysis.ops) {
    if (op.comm_op == model::kNoRow || set.communication.ops[op.comm_op].process != scope_process)
      continue;
    CommOpTiming out = op;
    out.comm_op = model::kNoRow;  // an index into this rank's model, gone after the summary
    summary.communication.push_back(std::move(out));
  }
  std::stable_sort(summary.communication.begin(), summary.communication.end(),
                   [](const CommOpTiming& a, const CommOpTiming& b) {
                     return a.time.start_ns < b.time.start_ns;
                   });
  summary.groups = set.communication_analysis.groups;
  return summary;
}

std::string SerializeRankSummary(const RankSummary& s) {
  ByteWriter w;
  w.Raw(kMagic, sizeof kMagic);
  w.U32(kVersion);
  w.I32(s.rank);
  w.I32(s.local_rank);
  w.I32(s.world_size);
  w.I32(s.device_id);
  w.Str(s.host);
  w.U64(s.sources.size());
  for (const std::string& source : s.sources) w.Str(source);
  w.Str(s.step_source);
  w.U64(s.events);
  w.U64(s.dropped_records);
  w.U64(s.steps.size());
  for (const RankStep& step : s.steps) {
    for (int64_t v : {step.step, step.begin_ns, step.end_ns, step.computing_ns,
                      step.communication_ns, step.communication_not_overlapped_ns, step.free_ns,
                      step.bubble_ns, step.preparing_ns, step.input_wait_ns}) {
      w.I64(v);
    }
    w.U32(step.loop);
    w.U32(step.has_path ? 1 : 0);
    if (!step.has_path) continue;
    w.I64(step.path_begin_ns);
    w.I64(step.path_end_ns);
    for (int64_t ns : step.path.ns) w.I64(ns);
  }
  w.U64(s.communication.size());
  for (const CommOpTiming& op : s.communication) {
    w.I32(op.rank);
    w.Str(op.name);
    w.Str(op.group);
    w.U32(static_cast<uint32_t>(op.kind));
    w.U32(static_cast<uint32_t>(op.type));
    w.U64(op.sequence);
    w.I32(op.src_rank);
    w.I32(op.dst_rank);
    w.I64(op.step);
    w.U32(op.loop);
    w.I64(op.end_ns);
    for (int64_t v : {op.time.start_ns, op.time.elapse_ns, op.time.transit_ns, op.time.wait_ns,
                      op.time.synchronization_ns, op.time.idle_ns, op.bytes}) {
      w.I64(v);
    }
    w.U32(static_cast<uint32_t>(op.wait_source));
    w.U32(static_cast<uint32_t>(op.transport));
  }
  w.U64(s.groups.size());
  for (const CommGroup& group : s.groups) {
    w.Str(group.name);
    w.U64(group.ranks.size());
    for (int32_t rank : group.ranks) w.I32(rank);
  }
  w.U64(s.process_groups.size());
  for (const model::ProcessGroupInfo& group : s.process_groups) {
    w.Str(group.name);
    w.Str(group.description);
    w.Str(group.backend);
    w.I32(group.group_rank);
    w.U64(group.ranks.size());
    for (int32_t rank : group.ranks) w.I32(rank);
  }
  return w.Take();
}

bool DeserializeRankSummary(const std::string& bytes, RankSummary* out, std::string* error) {
  ByteReader r(bytes);
  char magic[sizeof kMagic];
  uint32_t version = 0;
  if (!r.Raw(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    *error = "not a rank summary (bad magic)";
    return false;
  }
  if (!r.U32(&version) || version != kVersion) {
    *error = "rank summary version " + std::to_string(version) + ", this aiprof reads " +
             std::to_string(kVersion);
    return false;
  }
  RankSummary s;
  uint64_t count = 0;
  bool ok = r.I32(&s.rank) && r.I32(&s.local_rank) && r.I32(&s.world_size) && r.I32(&s.device_id) &&
            r.Str(&s.host) && r.Count(4, &count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    s.sources.emplace_back();
    ok = r.Str(&s.sources.back());
  }
  ok = ok && r.Str(&s.step_source) && r.U64(&s.events) && r.U64(&s.dropped_records) &&
       r.Count(10 * sizeof(int64_t) + 2 * sizeof(uint32_t), &count);
  // Count() checked that the bytes hold `count` entries, so reserving cannot overshoot.
  if (ok) s.steps.reserve(count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    RankStep& step = s.steps.emplace_back();
    for (int64_t* v : {&step.step, &step.begin_ns, &step.end_ns, &step.computing_ns,
                       &step.communication_ns, &step.communication_not_overlapped_ns, &step.free_ns,
                       &step.bubble_ns, &step.preparing_ns, &step.input_wait_ns}) {
      ok = ok && r.I64(v);
    }
    uint32_t has_path = 0;
    ok = ok && r.U32(&step.loop) && r.U32(&has_path) && has_path <= 1;
    step.has_path = has_path == 1;
    if (!ok || !step.has_path) continue;
    ok = r.I64(&step.path_begin_ns) && r.I64(&step.path_end_ns);
    for (int64_t& ns : step.path.ns) ok = ok && r.I64(&ns);
  }
  ok = ok && r.Count(120, &count);
  if (ok) s.communication.reserve(count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    CommOpTiming& op = s.communication.emplace_back();
    uint32_t kind = 0, type = 0, wait_source = 0, transport = 0;
    ok = r.I32(&op.rank) && r.Str(&op.name) && r.Str(&op.group) && r.U32(&kind) && r.U32(&type) &&
         r.U64(&op.sequence) && r.I32(&op.src_rank) && r.I32(&op.dst_rank) && r.I64(&op.step) &&
         r.U32(&op.loop) && r.I64(&op.end_ns);
    for (int64_t* v : {&op.time.start_ns, &op.time.elapse_ns, &op.time.transit_ns, &op.time.wait_ns,
                       &op.time.synchronization_ns, &op.time.idle_ns, &op.bytes}) {
      ok = ok && r.I64(v);
    }
    ok = ok && r.U32(&wait_source) && r.U32(&transport) && kind <= 1 &&
         type <= static_cast<uint32_t>(model::CommOpType::kOther) && wait_source <= 1 &&
         transport <= static_cast<uint32_t>(TransportType::kUnknown);
    op.kind = static_cast<CommKind>(kind);
    op.type = static_cast<model::CommOpType>(type);
    op.wait_source = static_cast<WaitSource>(wait_source);
    op.transport = static_cast<TransportType>(transport);
  }
  ok = ok && r.Count(12, &count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    CommGroup& group = s.groups.emplace_back();
    uint64_t ranks = 0;
    ok = r.Str(&group.name) && r.Count(4, &ranks);
    for (uint64_t j = 0; ok && j < ranks; ++j) ok = r.I32(&group.ranks.emplace_back());
  }
  ok = ok && r.Count(24, &count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    model::ProcessGroupInfo& group = s.process_groups.emplace_back();
    uint64_t ranks = 0;
    ok = r.Str(&group.name) && r.Str(&group.description) && r.Str(&group.backend) &&
         r.I32(&group.group_rank) && r.Count(4, &ranks);
    for (uint64_t j = 0; ok && j < ranks; ++j) ok = r.I32(&group.ranks.emplace_back());
  }
  if (!ok || !r.AtEnd()) {
    *error = "rank summary truncated or corrupt";
    return false;
  }
  *out = std::move(s);
  return true;
}

}  // namespace aiprof::analysis::cluster
