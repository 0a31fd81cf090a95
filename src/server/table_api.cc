// /api/table/operators and /api/table/kernels: analysis::ComputeOperatorTable's rows (the
// same figures as op_statistic / api_statistic, plus self time and shares of the wall time),
// with each row's process and role and the slice of its longest call, which the UI opens on
// the timeline.
#include "server/json_text.h"
#include "server/ui_api.h"

namespace aiprof::server {
namespace {

constexpr size_t kStreamPiece = 64 * 1024;  // bytes gathered before a piece is sent

}  // namespace

UiApi::TableRequest UiApi::CheckTableRequest(std::string_view name, int64_t step) const {
  TableRequest request;
  if (name == "kernels") {
    request.kind = analysis::OperatorTableKind::kKernels;
  } else if (name != "operators") {
    throw ApiError(404, "no table '" + std::string(name) + "' (tables: operators, kernels)");
  }
  const size_t steps = model_.steps.size();
  if (step < -1) throw ApiError(400, "parameter step: must be a step id (or -1: all)");
  if (step >= 0 && static_cast<size_t>(step) >= steps) {
    throw ApiError(404, "no step id " + std::to_string(step) + " in this run (" +
                            std::to_string(steps) + " steps)");
  }
  request.step_id = step < 0 ? model::kNoRow : static_cast<uint32_t>(step);
  return request;
}

void UiApi::Table(const TableRequest& request, const JsonSink& out) const {
  const model::Model& m = model_;
  const bool kernels = request.kind == analysis::OperatorTableKind::kKernels;
  const uint32_t step_id = request.step_id;
  const analysis::OperatorTable table =
      analysis::ComputeOperatorTable(m, request.kind, extent_, step_id);
  // Columns as op_statistic names them, with Process, Self Time and the wall shares added;
  // times in ns. `slices`: per row, its longest call; `processes`: its ProcessTable row.
  std::string piece =
      "{\"columns\":[\"Process\",\"Device_id\",\"OP Type\",\"Core Type\",\"Count\","
      "\"Total Time(us)\",\"Self Time(us)\",\"Min Time(us)\",\"Avg Time(us)\","
      "\"Max Time(us)\",\"Total/Wall(%)\",\"Self/Wall(%)\",\"Ratio(%)\"],\"missing\":";
  if (table.rows.empty() && step_id == model::kNoRow) {
    AppendJsonString(piece, kernels ? "this run has no device kernels (no CUDA source data): "
                                      "its compute tasks are the framework operators, shown "
                                      "under Operators"
                                    : "this run has no framework operators (torch operators, "
                                      "category cpu_op): record them with --task-time=on on a "
                                      "PyTorch job");
    piece += ",\"rows\":[],\"slices\":[],\"processes\":[]}";
    out(piece);
    return;
  }
  piece += "null,\"unit\":\"ns\",\"wall\":" + std::to_string(table.wall_ns()) + ",\"rows\":[";
  std::string slices = "],\"slices\":[", processes = "],\"processes\":[";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const analysis::OperatorTableRow& row = table.rows[i];
    const analysis::NameStatistics& st = row.stats;
    if (i > 0) {
      piece += ',';
      slices += ',';
      processes += ',';
    }
    piece += '[';
    AppendJsonString(
        piece, std::to_string(m.processes.pid[row.process]) + " " + role_labels_[row.process]);
    piece += ',';
    AppendJsonString(piece, row.device);
    piece += ',';
    AppendJsonString(piece, m.Str(st.name));
    piece += ',';
    AppendJsonString(piece, row.task_type);
    piece += ',' + std::to_string(st.count) + ',' + std::to_string(st.total_ns) + ',' +
             std::to_string(st.self_ns) + ',' + std::to_string(st.min_ns) + ',' +
             std::to_string(static_cast<int64_t>(st.mean_ns + 0.5)) + ',' +
             std::to_string(st.max_ns) + ',';
    AppendJsonNumber(piece, row.wall_pct);
    piece += ',';
    AppendJsonNumber(piece, row.self_wall_pct);
    piece += ',';
    AppendJsonNumber(piece, row.ratio_pct);
    piece += ']';
    slices += std::to_string(st.max_row);
    processes += std::to_string(row.process);
    if (piece.size() >= kStreamPiece) {
      if (!out(piece)) return;
      piece.clear();
    }
  }
  piece += slices + processes + "]}";
  out(piece);
}

}  // namespace aiprof::server
