#include "export/query.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <set>

#include "export/run_inputs.h"
#include "model/parser.h"

namespace aiprof::exporter {
namespace {

std::string FormatLocalTime(int64_t realtime_ns) {
  if (realtime_ns <= 0) return "N/A";
  std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1'000'000'000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

QueryRow Describe(const std::string& dir, const model::Model& m) {
  QueryRow row;
  row.dir_name = std::filesystem::path(dir).filename().string();
  std::set<int32_t> devices, ranks;
  for (size_t p = 0; p < m.processes.size(); ++p) {
    if (m.processes.device_id[p] >= 0) devices.insert(m.processes.device_id[p]);
    if (m.processes.rank[p] >= 0) ranks.insert(m.processes.rank[p]);
    if (row.job_info.empty() && m.processes.device_id[p] < 0 && !m.processes.metadata[p].empty()) {
      row.job_info = std::string(m.Str(m.processes.name[p]));
    }
  }
  row.device_id = "host";
  for (int32_t d : devices) row.device_id += "," + std::to_string(d);
  for (int32_t r : ranks) row.rank_id += (row.rank_id.empty() ? "" : ",") + std::to_string(r);
  if (row.rank_id.empty()) row.rank_id = "N/A";
  if (row.job_info.empty()) row.job_info = "N/A";
  int64_t start = m.start_ns;
  if (start == 0 && !m.slices.ts.empty()) {
    start = *std::min_element(m.slices.ts.begin(), m.slices.ts.end());
  }
  row.collection_time = FormatLocalTime(start);
  row.iterations = m.steps.size();
  int64_t longest = -1;
  row.top_time_iteration = "N/A";
  for (size_t i = 0; i < m.steps.size(); ++i) {
    if (m.steps.end[i] - m.steps.ts[i] > longest) {
      longest = m.steps.end[i] - m.steps.ts[i];
      row.top_time_iteration = std::to_string(m.steps.step[i]);
    }
  }
  return row;
}

}  // namespace

int RunQuery(const std::vector<std::string>& inputs, std::ostream& out, std::ostream& err,
             std::vector<QueryRow>* rows_out) {
  std::vector<model::RunInput> runs;
  if (!FindRuns(inputs, "aiprof query", err, &runs)) return 2;
  std::vector<QueryRow> rows;
  for (const model::RunInput& run : runs) {
    if (run.files.empty()) {
      err << "aiprof query: " << NoDataMessage(run) << "\n";
      continue;
    }
    rows.push_back(Describe(run.path, model::ParseFiles(run.files)));
  }
  if (rows.empty()) return 2;
  const std::vector<std::string> headers = {
      "Job Info",         "Device ID",          "Dir Name", "Collection Time",
      "Iteration Number", "Top Time Iteration", "Rank ID"};
  std::vector<std::vector<std::string>> table;
  for (const auto& r : rows) {
    table.push_back({r.job_info, r.device_id, r.dir_name, r.collection_time,
                     std::to_string(r.iterations), r.top_time_iteration, r.rank_id});
  }
  std::vector<size_t> width(headers.size());
  for (size_t c = 0; c < headers.size(); ++c) {
    width[c] = headers[c].size();
    for (const auto& line : table)
      width[c] = std::max(width[c], std::min<size_t>(line[c].size(), 60));
  }
  auto print = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c].size() > 60 ? cells[c].substr(0, 57) + "..." : cells[c];
      out << cell << std::string(width[c] - cell.size() + (c + 1 < cells.size() ? 2 : 0), ' ');
    }
    out << "\n";
  };
  print(headers);
  for (const auto& line : table) print(line);
  if (rows_out) *rows_out = std::move(rows);
  return 0;
}

}  // namespace aiprof::exporter
