#include "export/cluster/cluster_files.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <type_traits>

#include "export/csv/summary_writer.h"
#include "export/sqlite/cluster_db.h"
#include "export/text_writer.h"
#include "model/steps.h"

namespace aiprof::exporter {

namespace {

using analysis::CommMatrixEntry;
using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using analysis::cluster::ClusterStepRow;
using analysis::cluster::DivergentStep;
using analysis::cluster::HostClock;
using analysis::cluster::kDivergentStepColumns;
using analysis::cluster::kHostClockColumns;
using analysis::cluster::kRankInfoColumns;
using analysis::cluster::kRankVerdictColumns;
using analysis::cluster::kSlowLinkColumns;
using analysis::cluster::kStageVerdictColumns;
using analysis::cluster::kStepVerdictColumns;
using analysis::cluster::RankInfo;
using analysis::cluster::RankSet;
using analysis::cluster::RankVerdict;
using analysis::cluster::SlowLink;
using analysis::cluster::StageVerdict;
using analysis::cluster::StepVerdict;
using ordered_json = nlohmann::ordered_json;

using analysis::MillisValue;

// The described cells of `row` that the files show, as msprof-analyze's cluster files spell
// them (`"header": value, ...`): reals with their unit's fixed decimals (analysis::
// ClusterDecimals), which also keep the files identical however the ranks were split.
template <typename Row>
void ClusterCells(TextWriter& out, analysis::Columns<Row> columns,
                  const std::type_identity_t<Row>& row) {
  bool first = true;
  for (const analysis::Column<Row>& column : columns) {
    if (!column.WrittenBy(analysis::kFiles)) continue;
    out.Raw(first ? "\"" : ", \"").Raw(column.header).Raw("\": ");
    first = false;
    const analysis::CellValue cell = column.Read(row);
    const int decimals = analysis::ClusterDecimals(column.unit);
    if (cell.kind == analysis::CellValue::kNull) {
      out.Raw("null");
    } else if (cell.kind == analysis::CellValue::kText) {
      out.JsonString(cell.text);
    } else if (cell.kind == analysis::CellValue::kInteger &&
               column.unit == analysis::ColumnUnit::kFlag) {
      out.Raw(cell.integer != 0 ? "true" : "false");
    } else if (cell.kind == analysis::CellValue::kInteger && !analysis::HeldAsReal(column.unit)) {
      out.Int(cell.integer);
    } else if (decimals >= 0) {
      out.Fixed(analysis::ScaledValue(column.unit, cell), decimals);
    } else {
      out.Double(analysis::ScaledValue(column.unit, cell));
    }
  }
}

// The described cells of `row` that `shown` keeps, added to the JSON object `object` keyed by
// their headers: reals rounded to their unit's decimals as the cluster's tables hold them,
// flags as booleans.
template <typename Row, typename Json, typename Select>
void AddClusterCells(Json& object, analysis::Columns<Row> columns,
                     const std::type_identity_t<Row>& row, Select shown) {
  for (const analysis::Column<Row>& column : columns) {
    if (!shown(column)) continue;
    const analysis::CellValue cell = column.Read(row);
    Json& value = object[std::string(column.header)];
    if (cell.kind == analysis::CellValue::kText) {
      value = cell.text;
    } else if (cell.kind == analysis::CellValue::kInteger &&
               column.unit == analysis::ColumnUnit::kFlag) {
      value = cell.integer != 0;
    } else if (cell.kind == analysis::CellValue::kInteger && !analysis::HeldAsReal(column.unit)) {
      value = cell.integer;
    } else if (cell.kind != analysis::CellValue::kNull) {
      value = analysis::ClusterValue(column.unit, cell);
    }
  }
}

// The described cells of `row` that the files show as a JSON object keyed by their headers.
template <typename Row>
nlohmann::json ClusterObject(analysis::Columns<Row> columns, const std::type_identity_t<Row>& row) {
  nlohmann::json object = nlohmann::json::object();
  AddClusterCells<Row>(object, columns, row,
                       [](const auto& column) { return column.WrittenBy(analysis::kFiles); });
  return object;
}

// The group key of the JSON files: the group's ranks, as msprof-analyze names groups.
std::map<std::string, std::string> GroupKeys(const ClusterResult& result) {
  std::map<std::string, std::string> keys;
  for (const analysis::CommGroup& group : result.groups)
    keys[group.name] = group.ranks.empty() ? group.name : RankSet(group.ranks);
  return keys;
}

const std::string& GroupKey(const std::map<std::string, std::string>& keys,
                            const std::string& group) {
  const auto found = keys.find(group);
  return found == keys.end() ? group : found->second;
}

template <typename Json>
bool WriteJson(const Json& json, const std::string& path, std::vector<std::string>* written,
               std::vector<std::string>* errors) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json.dump(1, '\t') << "\n";
  out.close();
  if (!out) {
    errors->push_back("cannot write '" + path + "'; check that the directory is writable");
    return false;
  }
  written->push_back(path);
  return true;
}

// The critical rank per step and why (cluster_critical_path.h).
void WriteCriticalPath(const ClusterResult& result, const std::string& dir,
                       std::vector<std::string>* written, std::vector<std::string>* errors) {
  SummaryTarget target;
  target.dir = dir;
  target.written = written;
  target.errors = errors;
  std::vector<std::string> headers = {"Step"};
  AppendHeaders<analysis::cluster::ClusterCriticalStep>(
      headers, analysis::cluster::kClusterCriticalStepColumns);
  SummaryWriter w(target, "cluster_critical_path", std::move(headers), result.critical_steps.size(),
                  UINT64_MAX);
  for (const analysis::cluster::ClusterCriticalStep& s : result.critical_steps) {
    w.Step(static_cast<uint64_t>(s.step), s.loop, result.several_loops);
    w.Cells<analysis::cluster::ClusterCriticalStep>(analysis::cluster::kClusterCriticalStepColumns,
                                                    s);
    w.EndRow();
  }
}

void WriteStepTrace(const ClusterResult& result, const std::string& dir,
                    std::vector<std::string>* written, std::vector<std::string>* errors) {
  SummaryTarget target;
  target.dir = dir;
  target.written = written;
  target.errors = errors;
  std::vector<std::string> headers = {"Step", "Type", "Index"};
  AppendHeaders<analysis::StepParts>(headers, analysis::kStepTraceTimeColumns);
  // msprof-analyze adds the parallel indices only when it knows them: so does aiprof.
  const bool indices = result.layout.known;
  if (indices) headers.insert(headers.end(), {"DP Index", "PP Index", "TP Index"});
  SummaryWriter w(target, "cluster_step_trace_time", std::move(headers), result.step_rows.size(),
                  UINT64_MAX);
  for (const ClusterStepRow& r : result.step_rows) {
    if (r.step == analysis::cluster::kNoStep) {
      w.NotApplicable();
    } else {
      w.Step(static_cast<uint64_t>(r.step), r.loop, result.several_loops);
    }
    w.PlainText(r.type == ClusterStepRow::Type::kRank ? "rank" : "stage").Text(r.index);
    for (size_t c = 0; c < analysis::kStepTraceTimeColumnCount; ++c) {
      const auto& column = analysis::kStepTraceTimeColumns[c];
      if (column.WrittenBy(analysis::kFiles))
        w.Cell(column.unit, analysis::IntegerCell(r.times[c]));
    }
    if (indices) {
      for (int32_t index : {r.position.dp_index, r.position.pp_index, r.position.tp_index}) {
        if (index < 0) {
          w.PlainText("NA");  // msprof-analyze's spelling: stage rows, unknown indices
        } else {
          w.Number(index);
        }
      }
    }
    w.EndRow();
  }
}

// Streamed, not built as one document: a 1,024-rank job has hundreds of thousands of
// operation rows, and a JSON tree of them costs gigabytes. Layout: step → group →
// operation → rank, then the group's "Total Op Info" → rank.
class CommunicationStream {
 public:
  explicit CommunicationStream(TextWriter& out) : out_(out) {}

  // `group` is compared by address first: the group keys of a 1,024-rank job are kilobytes
  // long, and most rows repeat the previous row's group.
  void Add(const std::string& step, const std::string& group, const CommOpTiming& op) {
    const bool same_group = &group == last_group_ || group == group_;
    if (step != step_ || !same_group) {
      CloseGroup();
      if (step != step_) {
        if (!step_.empty()) out_.Raw("\n\t}");
        out_.Raw(step_.empty() ? "{\n\t" : ",\n\t").Raw(ordered_json(step).dump()).Raw(": {");
        first_group_ = true;
        step_ = step;
      }
      out_.Raw(first_group_ ? "\n\t\t" : ",\n\t\t").Raw(ordered_json(group).dump()).Raw(": {");
      first_group_ = false;
      group_ = group;
      in_op_ = false;
    }
    if (!in_op_ || op.name != op_name_ || op.group != op_group_) {
      if (in_op_) out_.Raw("\n\t\t\t}");
      out_.Raw(in_op_ ? ",\n\t\t\t" : "\n\t\t\t").Raw(ordered_json(op.key()).dump()).Raw(": {");
      op_name_ = op.name;
      op_group_ = op.group;
      in_op_ = true;
      first_rank_ = true;
    }
    last_group_ = &group;
    const std::string_view transport = analysis::TransportTypeName(op.transport);
    const analysis::CommBandwidthInfo info = op.bandwidth();
    BeginRank(op.rank, op.time);
    Bandwidth(transport, info, true);
    EndRank();
    auto& [time, bandwidths] = totals_[op.rank];
    time.Add(op.time);
    bandwidths[std::string(transport)].Add(info);
  }

  void Finish() {
    CloseGroup();
    out_.Raw(step_.empty() ? "{}\n" : "\n\t}\n}\n");
  }

 private:
  // Formatted directly into the writer's buffer: half a million small JSON trees (or
  // printf calls) cost more than the merge itself.
  void BeginRank(int32_t rank, const analysis::CommTimeInfo& t) {
    out_.Raw(first_rank_ ? "\n\t\t\t\t\"" : ",\n\t\t\t\t\"").Int(rank);
    out_.Raw("\": {\"Communication Time Info\": {");
    ClusterCells<analysis::CommTimeInfo>(out_, analysis::kCommTimeColumns, t);
    out_.Raw("}, \"Communication Bandwidth Info\": {");
    first_rank_ = false;
  }

  void Bandwidth(std::string_view transport, const analysis::CommBandwidthInfo& b, bool first) {
    out_.Raw(first ? "\"" : ", \"").Raw(transport).Raw("\": {");
    ClusterCells<analysis::CommBandwidthInfo>(out_, analysis::kCommBandwidthColumns, b);
    out_.Raw(", \"Size Distribution\": {");
    bool first_size = true;
    for (const auto& [bytes, entry] : b.size_distribution) {
      out_.Raw(first_size ? "\"" : ", \"").Fixed(static_cast<double>(bytes) / 1e6, 6);
      out_.Raw("\": [").UInt(entry.first).Raw(", ");
      out_.Fixed(MillisValue(entry.second), 6).Char(']');
      first_size = false;
    }
    out_.Raw("}}");
  }

  void EndRank() { out_.Raw("}}"); }

  void CloseGroup() {
    if (group_.empty()) return;
    out_.Raw("\n\t\t\t},\n\t\t\t\"Total Op Info\": {");
    first_rank_ = true;
    for (const auto& [rank, total] : totals_) {
      BeginRank(rank, total.first);
      bool first = true;
      for (const auto& [transport, b] : total.second) {
        Bandwidth(transport, b, first);
        first = false;
      }
      EndRank();
    }
    out_.Raw("\n\t\t\t}\n\t\t}");
    totals_.clear();
    group_.clear();
    last_group_ = nullptr;
    in_op_ = false;
  }

  TextWriter& out_;
  std::string step_, group_, op_name_, op_group_;
  const std::string* last_group_ = nullptr;
  bool first_group_ = true, first_rank_ = true, in_op_ = false;
  std::map<int32_t,
           std::pair<analysis::CommTimeInfo, std::map<std::string, analysis::CommBandwidthInfo>>>
      totals_;
};

void WriteCommunication(const ClusterResult& result, const std::string& dir,
                        std::vector<std::string>* written, std::vector<std::string>* errors) {
  const std::map<std::string, std::string> keys = GroupKeys(result);
  // The rows are by step, operation and rank; within a step, one group after the other.
  std::vector<uint32_t> order(result.comm_ops.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const CommOpTiming &x = result.comm_ops[a], &y = result.comm_ops[b];
    if (analysis::cluster::KeyOf(x) != analysis::cluster::KeyOf(y)) {
      return analysis::cluster::KeyOf(x) < analysis::cluster::KeyOf(y);
    }
    return x.group < y.group;
  });
  const std::string path = dir + "/cluster_communication.json";
  TextWriter out;
  std::string error;
  out.Open(path, &error);
  CommunicationStream stream(out);
  for (uint32_t i : order) {
    const CommOpTiming& op = result.comm_ops[i];
    stream.Add(ClusterStepKey(op.step, op.loop, result.several_loops), GroupKey(keys, op.group),
               op);
  }
  stream.Finish();
  if (!out.Close()) {
    errors->push_back(out.error() + "; check that the directory is writable");
    return;
  }
  written->push_back(path);
}

void WriteMatrix(const ClusterResult& result, const std::string& dir,
                 std::vector<std::string>* written, std::vector<std::string>* errors) {
  const std::map<std::string, std::string> keys = GroupKeys(result);
  // A sorted map: an insertion-ordered one looks keys up linearly.
  nlohmann::json json = nlohmann::json::object();
  for (const CommMatrixEntry& e : result.matrix) {
    const std::string link = std::to_string(e.src_rank) + "-" + std::to_string(e.dst_rank);
    json[ClusterStepKey(e.step, e.loop, result.several_loops)][GroupKey(keys, e.group)]
        [e.name + "@" + e.group][link] =
            ClusterObject<CommMatrixEntry>(analysis::kCommMatrixColumns, e);
  }
  WriteJson(json, dir + "/cluster_communication_matrix.json", written, errors);
}

// The files' columns of the cluster's own results: a kWithParallelLayout column (a rank's
// pipeline stage, a divergent step's) only where the layout is known, so a job without one
// keeps its files as they were.
auto FilesColumns(bool staged) {
  return [staged](const auto& column) { return column.WrittenBy(analysis::kFiles, staged); };
}

// An object per row of a described result of the cluster's own.
template <typename Row>
ordered_json DescribedObjects(analysis::Columns<Row> columns, const std::vector<Row>& rows,
                              bool staged) {
  ordered_json objects = ordered_json::array();
  for (const Row& row : rows) {
    AddClusterCells<Row>(objects.emplace_back(ordered_json::object()), columns, row,
                         FilesColumns(staged));
  }
  return objects;
}

// The ranks' and the stages' verdicts (slow_ranks.h) and the divergent steps.
void AddDiagnosis(const ClusterResult& result, ordered_json& json) {
  const bool staged = result.layout.known;
  ordered_json verdicts = ordered_json::array();
  for (const RankVerdict& v : result.verdicts) {
    ordered_json& verdict = verdicts.emplace_back(ordered_json::object());
    AddClusterCells<RankVerdict>(verdict, kRankVerdictColumns, v, FilesColumns(staged));
    AddClusterCells<StepVerdict>(verdict, kStepVerdictColumns, v, FilesColumns(staged));
  }
  json["ranks_diagnosis"] = std::move(verdicts);
  if (staged) {
    ordered_json stages = ordered_json::array();
    for (const StageVerdict& v : result.stage_verdicts) {
      ordered_json& verdict = stages.emplace_back(ordered_json::object());
      AddClusterCells<StageVerdict>(verdict, kStageVerdictColumns, v, FilesColumns(staged));
      verdict["ranks"] = v.ranks;  // a list, no cell (kStageVerdictColumns)
      AddClusterCells<StepVerdict>(verdict, kStepVerdictColumns, v, FilesColumns(staged));
    }
    json["stages_diagnosis"] = std::move(stages);
  }
  json["slow_links"] = DescribedObjects<SlowLink>(kSlowLinkColumns, result.slow_links, staged);
  ordered_json steps = ordered_json::array();
  for (const DivergentStep& d : result.divergent_steps) {
    ordered_json& step = steps.emplace_back(ordered_json{{"step", d.step}});
    AddClusterCells<DivergentStep>(step, kDivergentStepColumns, d, FilesColumns(staged));
  }
  json["divergent_steps"] = std::move(steps);
}

void WriteBaseInfo(const ClusterResult& result, const std::string& dir,
                   std::vector<std::string>* written, std::vector<std::string>* errors) {
  ordered_json json = ordered_json::object();
  AddClusterCells<ClusterResult>(json, analysis::cluster::kClusterBaseInfoColumns, result,
                                 FilesColumns(result.layout.known));
  if (result.layout.known) {
    ordered_json& layout = json["parallel_layout"] = ordered_json::object();
    AddClusterCells<analysis::cluster::ParallelLayout>(
        layout, analysis::cluster::kParallelLayoutColumns, result.layout, FilesColumns(true));
    layout["stages"] = result.layout.stages;  // lists, no cells (kParallelLayoutColumns)
  }
  ordered_json ranks =
      DescribedObjects<RankInfo>(kRankInfoColumns, result.ranks, result.layout.known);
  for (size_t i = 0; i < result.ranks.size(); ++i) {
    ranks[i]["sources"] = result.ranks[i].sources;  // a list, no cell (kRankInfoColumns)
  }
  json["ranks"] = std::move(ranks);
  ordered_json clock = ordered_json::object();
  AddClusterCells<analysis::cluster::ClockAlignment>(
      clock, analysis::cluster::kClockAlignmentColumns, result.clock,
      FilesColumns(result.layout.known));
  clock["hosts"] =
      DescribedObjects<HostClock>(kHostClockColumns, result.clock.hosts, result.layout.known);
  json["clock_alignment"] = std::move(clock);
  AddDiagnosis(result, json);
  WriteJson(json, dir + "/cluster_base_info.json", written, errors);
}

}  // namespace

std::string ClusterStepKey(int64_t step, uint32_t loop, bool several_loops) {
  return step == analysis::cluster::kNoStep
             ? "step"
             : "step" + model::FormatStepLabel(several_loops, loop, static_cast<uint64_t>(step));
}

void WriteClusterOutputs(const ClusterResult& result, unsigned outputs, const std::string& dir,
                         std::vector<std::string>* written, std::vector<std::string>* errors) {
  const auto selected = [&](ClusterOutputs output) {
    return (outputs & static_cast<unsigned>(output)) != 0;
  };
  // cluster.db in a second thread: it and the text files take about as long as each other,
  // and each reads only `result`. The paths keep their order (files, then the db).
  std::string db_error;
  const std::string db = dir + "/cluster.db";
  std::thread db_writer([&] { WriteClusterDb(result, outputs, db, &db_error); });
  if (selected(ClusterOutputs::kStepTrace)) WriteStepTrace(result, dir, written, errors);
  if (selected(ClusterOutputs::kCommunicationTime))
    WriteCommunication(result, dir, written, errors);
  if (selected(ClusterOutputs::kCommunicationMatrix)) WriteMatrix(result, dir, written, errors);
  if (!result.critical_steps.empty()) WriteCriticalPath(result, dir, written, errors);
  WriteBaseInfo(result, dir, written, errors);
  db_writer.join();
  if (db_error.empty()) {
    written->push_back(db);
  } else {
    errors->push_back(db_error);
  }
}

}  // namespace aiprof::exporter
