// /api/communication: the Communication / cluster view's data, from the one AnalysisSet's
// communication analysis (the results `aiprof export` writes to communication.json and
// communication_matrix.json): every operation's time split, the communication wait per rank
// and step (the heatmap), the point-to-point matrix, and what is missing when the run has no
// communication or one rank only.
#include "server/communication_api.h"

#include <map>
#include <set>
#include <utility>

#include "server/json_text.h"

namespace aiprof::server {
namespace {

std::string MissingText(const analysis::CommunicationAnalysis& c, size_t ranks) {
  if (c.ops.empty()) {
    return "No communication operations in this run: the view needs collectives or "
           "send/recv (gloo/NCCL/MPI/UCC backend ranges, NCCL kernels or NCCL NVTX ranges), "
           "recorded on every rank of a distributed job.";
  }
  if (ranks < 2) {
    return "One rank only: the wait (and so wait vs transit and the heatmap across ranks) "
           "needs every rank's operations; open the directory holding all the ranks' PROF_* "
           "directories (aiprof ui <parent dir>).";
  }
  return "";
}

}  // namespace

std::string CommunicationApi::Answer() const {
  const analysis::CommunicationAnalysis& c = analyses_.Analyses().communication_analysis;
  // The heatmap: per rank and step, the operations' summed wait and elapse (ns).
  std::map<std::pair<int32_t, int64_t>, std::pair<int64_t, int64_t>> cells;
  std::set<int32_t> ranks;
  std::set<int64_t> steps;
  for (const analysis::CommOpTiming& op : c.ops) {
    auto& cell = cells[{op.rank, op.step}];
    cell.first += op.time.wait_ns;
    cell.second += op.time.elapse_ns;
    ranks.insert(op.rank);
    steps.insert(op.step);
  }
  std::string out = "{\"missing\":";
  const std::string missing = MissingText(c, ranks.size());
  if (missing.empty()) {
    out += "null";
  } else {
    AppendJsonString(out, missing);
  }
  out += ",\"wait_note\":";
  AppendJsonString(out, c.wait_note);
  // Operation rows: [name, group, kind, type, rank, step, start, elapse, transit, wait,
  // synchronization, idle, wait ratio, bytes (-1 unknown), bandwidth GB/s, transport,
  // wait source, slice (-1: merged)]; times in ns, start since the run's origin.
  out += ",\"ops\":[";
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const analysis::CommOpTiming& op = c.ops[i];
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, op.name);
    out += ',';
    AppendJsonString(out, op.group);
    out += ',';
    AppendJsonString(out, analysis::CommKindName(op.kind));
    out += ',';
    AppendJsonString(out, model::CommOpTypeName(op.type));
    out += ',' + std::to_string(op.rank) + ',' + std::to_string(op.step) + ',' +
           std::to_string(op.time.start_ns - origin_ns_) + ',' + std::to_string(op.time.elapse_ns) +
           ',' + std::to_string(op.time.transit_ns) + ',' + std::to_string(op.time.wait_ns) + ',' +
           std::to_string(op.time.synchronization_ns) + ',' + std::to_string(op.time.idle_ns) + ',';
    AppendJsonNumber(out, analysis::RoundedRatio(op.time.wait_ratio()));
    out += ',' + std::to_string(op.bytes) + ',';
    AppendJsonNumber(out, op.bandwidth().bandwidth_gbps());
    out += ',';
    AppendJsonString(out, analysis::TransportTypeName(op.transport));
    out += ',';
    AppendJsonString(out, analysis::WaitSourceName(op.wait_source));
    const uint32_t slice = op.comm_op < analyses_.Analyses().communication.ops.size()
                               ? analyses_.Analyses().communication.ops[op.comm_op].slice
                               : model::kNoRow;
    out += ',' + (slice == model::kNoRow ? std::string("-1") : std::to_string(slice)) + ']';
  }
  out += "],\"ranks\":[";
  for (auto it = ranks.begin(); it != ranks.end(); ++it) {
    if (it != ranks.begin()) out += ',';
    out += std::to_string(*it);
  }
  out += "],\"steps\":[";
  for (auto it = steps.begin(); it != steps.end(); ++it) {
    if (it != steps.begin()) out += ',';
    out += std::to_string(*it);
  }
  out += "],\"heatmap\":[";  // [rank, step, wait, elapse]
  bool first = true;
  for (const auto& [key, cell] : cells) {
    if (!first) out += ',';
    first = false;
    out += '[' + std::to_string(key.first) + ',' + std::to_string(key.second) + ',' +
           std::to_string(cell.first) + ',' + std::to_string(cell.second) + ']';
  }
  // Matrix rows: [name, group, step, src, dst, transport, bytes, transit ns, bandwidth GB/s].
  out += "],\"matrix\":[";
  for (size_t i = 0; i < c.matrix.size(); ++i) {
    const analysis::CommMatrixEntry& e = c.matrix[i];
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, e.name);
    out += ',';
    AppendJsonString(out, e.group);
    out += ',' + std::to_string(e.step) + ',' + std::to_string(e.src_rank) + ',' +
           std::to_string(e.dst_rank) + ',';
    AppendJsonString(out, analysis::TransportTypeName(e.transport));
    out += ',' + std::to_string(e.bytes) + ',' + std::to_string(e.transit_ns) + ',';
    AppendJsonNumber(out, e.bandwidth_gbps());
    out += ']';
  }
  out += "]}";
  return out;
}

}  // namespace aiprof::server
