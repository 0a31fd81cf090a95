#include "export/analysis/communication_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "export/sqlite/communication_analysis_tables.h"
#include "model/steps.h"

namespace aiprof::exporter {
namespace {

using analysis::CommBandwidthInfo;
using analysis::CommKind;
using analysis::CommMatrixEntry;
using analysis::CommOpTiming;
using analysis::CommTimeInfo;
using Json = nlohmann::ordered_json;

// A described cell (analysis/result_columns.h) as msprof's JSON files hold its unit: µs or ms
// as reals, rounded shares, integers, text.
Json CellJson(analysis::ColumnUnit unit, const analysis::CellValue& cell) {
  switch (cell.kind) {
    case analysis::CellValue::kNull:
      return nullptr;
    case analysis::CellValue::kText:
      return cell.text;
    case analysis::CellValue::kInteger:
      if (!analysis::HeldAsReal(unit)) return cell.integer;
      return analysis::RealValue(unit, cell);
    case analysis::CellValue::kReal:
      return analysis::RealValue(unit, cell);
  }
  return nullptr;
}

// An object of the file's columns of `row`, keyed by their headers.
template <typename Row>
Json DescribedJson(analysis::Columns<Row> columns, const std::type_identity_t<Row>& row) {
  Json object = Json::object();
  for (const analysis::Column<Row>& column : columns) {
    if (column.WrittenBy(analysis::kFiles)) {
      object[std::string(column.header)] = CellJson(column.unit, column.Read(row));
    }
  }
  return object;
}

using StepId = std::pair<uint32_t, int64_t>;  // (loop, number)

// A StepId as StepKey reads it.
struct Keyed {
  explicit Keyed(const StepId& id) : loop(id.first), step(id.second) {}
  uint32_t loop;
  int64_t step;
};

// msprof-analyze's op type words (the regex it reads the type with): receive, not recv.
std::string TypeWord(model::CommOpType type) {
  switch (type) {
    case model::CommOpType::kRecv:
      return "receive";
    case model::CommOpType::kSendRecv:
      return "batchsendrecv";
    default:
      return std::string(model::CommOpTypeName(type));
  }
}

Json TimeJson(const CommTimeInfo& t, std::string_view wait_source) {
  Json time = DescribedJson<CommTimeInfo>(analysis::kCommTimeColumns, t);
  time["Wait Time Source"] = wait_source;
  return time;
}

Json BandwidthJson(const std::map<analysis::TransportType, CommBandwidthInfo>& by_transport) {
  Json bandwidth = Json::object();
  for (const auto& [transport, info] : by_transport) {
    Json sizes = Json::object();
    for (const auto& [bytes, entry] : info.size_distribution) {
      sizes[Json(static_cast<double>(bytes) / 1e6).dump()] = {entry.first,
                                                              analysis::MillisValue(entry.second)};
    }
    Json entry = DescribedJson<CommBandwidthInfo>(analysis::kCommBandwidthColumns, info);
    entry["Size Distribution"] = std::move(sizes);
    bandwidth[std::string(analysis::TransportTypeName(transport))] = std::move(entry);
  }
  return bandwidth;
}

// The key of an operation in its step's kind; a model holding several ranks (fork children,
// ranks exported as one) names each rank's copy apart.
std::string OpKey(const CommOpTiming& op, bool several_ranks) {
  return several_ranks ? op.key() + "#rank" + std::to_string(op.rank) : op.key();
}

bool SeveralRanks(const analysis::CommunicationAnalysis& a) {
  return std::any_of(a.ops.begin(), a.ops.end(),
                     [&](const CommOpTiming& op) { return op.rank != a.ops.front().rank; });
}

// Steps in ascending order ("step" without steps first), each with p2p before collective.
std::vector<StepId> StepsOf(const analysis::CommunicationAnalysis& a) {
  std::set<StepId> steps;
  for (const CommOpTiming& op : a.ops) steps.insert({op.loop, op.step});
  return {steps.begin(), steps.end()};
}

Json MatrixLink(const CommMatrixEntry& e, const std::string& op_name) {
  Json link = DescribedJson<CommMatrixEntry>(analysis::kCommMatrixColumns, e);
  link["Op Name"] = op_name;
  return link;
}

std::string LinkKey(const CommMatrixEntry& e) {
  return std::to_string(e.src_rank) + "-" + std::to_string(e.dst_rank);
}

// One operation's links and its bandwidth (bytes over transit of all its links).
struct MatrixOp {
  std::string name;
  std::vector<const CommMatrixEntry*> links;
  double bandwidth() const {
    int64_t bytes = 0, ns = 0;
    for (const CommMatrixEntry* link : links) {
      bytes += link->bytes;
      ns += link->transit_ns;
    }
    return ns > 0 ? static_cast<double>(bytes) / static_cast<double>(ns) : 0.0;
  }
};

Json OpLinks(const MatrixOp& op) {
  Json links = Json::object();
  for (const CommMatrixEntry* link : op.links) links[LinkKey(*link)] = MatrixLink(*link, op.name);
  return links;
}

// torch_npu's selection of one type's operations by bandwidth: the fastest, the median, the
// three slowest, and every link summed.
void AddTypeMatrix(const std::string& type, const std::string& group, std::vector<MatrixOp> ops,
                   Json& kind_json) {
  std::stable_sort(ops.begin(), ops.end(), [](const MatrixOp& a, const MatrixOp& b) {
    return a.bandwidth() > b.bandwidth();
  });
  const size_t n = ops.size();
  kind_json[type + "-top1@" + group] = OpLinks(ops.front());
  kind_json[type + "-middle@" + group] = OpLinks(ops[n / 2]);
  kind_json[type + "-bottom1@" + group] = OpLinks(ops[n - 1]);
  if (n > 1) kind_json[type + "-bottom2@" + group] = OpLinks(ops[n - 2]);
  if (n > 2) kind_json[type + "-bottom3@" + group] = OpLinks(ops[n - 3]);
  std::map<std::string, CommMatrixEntry> total;
  for (const MatrixOp& op : ops) {
    for (const CommMatrixEntry* link : op.links) {
      auto [it, inserted] = total.try_emplace(LinkKey(*link), *link);
      if (inserted) continue;
      it->second.bytes += link->bytes;
      it->second.transit_ns += link->transit_ns;
    }
  }
  Json links = Json::object();
  for (const auto& [key, link] : total) links[key] = MatrixLink(link, type + "-total");
  kind_json[type + "-total@" + group] = links;
}

bool WriteText(const std::string& path, const std::string& text, std::vector<std::string>* written,
               std::vector<std::string>* errors) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      errors->push_back("cannot write " + temporary);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    errors->push_back("cannot rename " + temporary + " to " + path + ": " + ec.message());
    return false;
  }
  written->push_back(path);
  return true;
}

}  // namespace

std::string WaitSourceText(const CommOpTiming& op, const analysis::CommunicationAnalysis& a) {
  if (op.wait_source == analysis::WaitSource::kPeers) return "peers";
  return a.wait_note.empty() ? std::string(analysis::WaitSourceName(op.wait_source)) : a.wait_note;
}

std::string CommunicationJson(const analysis::CommunicationAnalysis& a) {
  Json root = Json::object();
  const bool several = SeveralRanks(a);
  for (const StepId& step : StepsOf(a)) {
    Json step_json = Json::object();
    for (CommKind kind : {CommKind::kP2p, CommKind::kCollective}) {
      Json kind_json = Json::object();
      CommTimeInfo total_time;
      std::map<analysis::TransportType, CommBandwidthInfo> total_bandwidth;
      bool all_measured = true;
      for (const CommOpTiming& op : a.ops) {
        if (StepId{op.loop, op.step} != step || op.kind != kind) continue;
        std::map<analysis::TransportType, CommBandwidthInfo> bandwidth{
            {op.transport, op.bandwidth()}};
        kind_json[OpKey(op, several)] = {
            {"Communication Time Info", TimeJson(op.time, WaitSourceText(op, a))},
            {"Communication Bandwidth Info", BandwidthJson(bandwidth)}};
        total_time.Add(op.time);
        total_bandwidth[op.transport].Add(op.bandwidth());
        all_measured &= op.wait_source == analysis::WaitSource::kPeers;
      }
      if (kind_json.empty()) continue;
      for (auto& [transport, info] : total_bandwidth) info.transport = transport;
      kind_json["Total Op Info"] = {
          {"Communication Time Info", TimeJson(total_time, all_measured          ? "peers"
                                                           : a.wait_note.empty() ? "not measured"
                                                                                 : a.wait_note)},
          {"Communication Bandwidth Info", BandwidthJson(total_bandwidth)}};
      step_json[std::string(analysis::CommKindName(kind))] = std::move(kind_json);
    }
    root[CommunicationStepKey(Keyed{step}, a.several_loops)] = std::move(step_json);
  }
  return root.dump(4);
}

std::string CommunicationMatrixJson(const analysis::CommunicationAnalysis& a) {
  Json root = Json::object();
  // step -> kind -> (type word, group) -> operations in order of appearance.
  using TypeKey = std::pair<std::string, std::string>;
  std::map<StepId, std::map<CommKind, std::map<TypeKey, std::vector<MatrixOp>>>> grouped;
  std::map<std::tuple<StepId, std::string, std::string>, size_t> op_index;
  for (const CommMatrixEntry& e : a.matrix) {
    const StepId step{e.loop, e.step};
    auto& ops = grouped[step][e.kind][{TypeWord(e.type), e.group}];
    auto [it, inserted] = op_index.try_emplace({step, e.group, e.name}, ops.size());
    if (inserted) ops.push_back(MatrixOp{e.name, {}});
    ops[it->second].links.push_back(&e);
  }
  for (const auto& [step, kinds] : grouped) {
    Json step_json = Json::object();
    for (CommKind kind : {CommKind::kP2p, CommKind::kCollective}) {
      const auto found = kinds.find(kind);
      if (found == kinds.end()) continue;
      Json kind_json = Json::object();
      for (const auto& [type_group, ops] : found->second) {
        AddTypeMatrix(type_group.first, type_group.second, ops, kind_json);
      }
      step_json[std::string(analysis::CommKindName(kind))] = std::move(kind_json);
    }
    root[CommunicationStepKey(Keyed{step}, a.several_loops)] = std::move(step_json);
  }
  return root.dump(4);
}

void WriteCommunicationFiles(const analysis::CommunicationAnalysis& a, const std::string& dir,
                             std::vector<std::string>* written, std::vector<std::string>* errors) {
  const std::filesystem::path base(dir);
  WriteText((base / "communication.json").string(), CommunicationJson(a), written, errors);
  WriteText((base / "communication_matrix.json").string(), CommunicationMatrixJson(a), written,
            errors);
}

void CommunicationOutputs::Add(const analysis::CommunicationAnalysis& analysis, std::string dir,
                               std::string database) {
  pending_.push_back(Pending{analysis, std::move(dir), std::move(database)});
}

void CommunicationOutputs::Finish(std::vector<std::string>* written,
                                  std::vector<std::string>* errors) {
  std::vector<analysis::CommunicationAnalysis*> ranks;
  for (Pending& p : pending_) ranks.push_back(&p.analysis);
  analysis::DerivePeerWaitAcrossRanks(ranks);
  for (const Pending& p : pending_) {
    if (p.analysis.ops.empty()) continue;
    if (!p.dir.empty()) WriteCommunicationFiles(p.analysis, p.dir, written, errors);
    if (p.database.empty()) continue;
    std::string error;
    if (!WriteCommunicationTables(p.database, p.analysis, &error)) {
      errors->push_back("cannot write the communication tables into '" + p.database +
                        "': " + error);
    }
  }
  pending_.clear();
}

bool CommunicationOutputs::FinishAndReport(std::string_view command,
                                           std::vector<std::string>* written, std::ostream& out,
                                           std::ostream& err) {
  std::vector<std::string> errors;
  const size_t before = written->size();
  Finish(written, &errors);
  for (size_t i = before; i < written->size(); ++i) out << "  " << (*written)[i] << "\n";
  for (const std::string& e : errors) err << command << ": " << e << "\n";
  return errors.empty();
}

}  // namespace aiprof::exporter
