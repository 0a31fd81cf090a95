// /api/communication: the Communication / cluster view's data, from the one AnalysisSet's
// communication analysis (the results `aiprof export` writes to communication.json and
// communication_matrix.json): every operation's time split, the communication wait per rank
// and step (the heatmap), the point-to-point matrix, and what is missing when the run has no
// communication or one rank only.
#include "server/communication_api.h"

#include <map>
#include <set>
#include <utility>

#include "server/described_json.h"

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
  // Operations: the described columns (analysis::kCommOpColumns, kCommTimeColumns; ns, the
  // start since the run's origin) and the operation's slice (null: merged, or none).
  out += ",\"ops\":[";
  const std::vector<model::CommOp>& recorded = analyses_.Analyses().communication.ops;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const analysis::CommOpTiming& op = c.ops[i];
    if (i > 0) out += ',';
    OpenDescribedObject<analysis::CommOpTiming>(out, analysis::kCommOpColumns, op, origin_ns_);
    AppendColumns<analysis::CommTimeInfo>(out, analysis::kCommTimeColumns, op.time, origin_ns_);
    const uint32_t slice =
        op.comm_op < recorded.size() ? recorded[op.comm_op].slice : model::kNoRow;
    out += ",\"slice\":" + (slice == model::kNoRow ? std::string("null") : std::to_string(slice)) +
           '}';
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
  // Links: the described columns (analysis::kCommMatrixColumns; ns).
  out += "],\"matrix\":[";
  for (size_t i = 0; i < c.matrix.size(); ++i) {
    if (i > 0) out += ',';
    OpenDescribedObject<analysis::CommMatrixEntry>(out, analysis::kCommMatrixColumns, c.matrix[i],
                                                   origin_ns_);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace aiprof::server
