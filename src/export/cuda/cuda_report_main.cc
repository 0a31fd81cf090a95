// aiprof_cuda_report: parses PROF_* directories and prints their CUDA data as one JSON
// object (kernels, copies, API calls, flows, steps, operator attribution, event waits, drops), and
// optionally writes the CUDA CSV summaries. scripts/verify-cuda.sh compares this with what
// examples/cuda/cuda_workload and examples/cuda/train_cuda.py say they launched.
//
//   aiprof_cuda_report <PROF_dir or parent> [--csv-dir DIR]
#include <bit>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "export/cuda/cuda_summaries.h"
#include "model/parser.h"

namespace {

using aiprof::model::Model;

std::optional<uint64_t> Arg(const Model& m, uint32_t set, std::string_view key) {
  return m.args.Bits(set, m.strings.Find(key));
}

// Each cudaStreamWaitEvent's sync record: the waiting stream, and the stream and the
// cudaEventRecord call the importer found it waits for (null when it found none).
nlohmann::json EventWaits(const Model& m) {
  std::unordered_set<uint64_t> record_calls;
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    const std::string_view name = m.Str(m.slices.name[s]);
    if (!name.starts_with("cudaEventRecord") && !name.starts_with("cuEventRecord")) continue;
    if (auto correlation = Arg(m, m.slices.args[s], "correlation"))
      record_calls.insert(*correlation);
  }
  nlohmann::json waits = nlohmann::json::array();
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    if (m.Str(m.slices.category[s]) != "cuda_sync" ||
        m.Str(m.slices.name[s]) != "Stream Wait Event") {
      continue;
    }
    const uint32_t args = m.slices.args[s];
    const auto on_stream = Arg(m, args, "wait_on_stream");
    const auto record = Arg(m, args, "wait_on_cuda_event_record_corr_id");
    waits.push_back({{"stream", Arg(m, args, "stream").value_or(0)},
                     {"start_ns", m.slices.ts[s]},
                     {"wait_on_stream", on_stream ? nlohmann::json(*on_stream) : nullptr},
                     {"record_correlation", record ? nlohmann::json(*record) : nullptr},
                     {"record_call_found", record.has_value() && record_calls.contains(*record)}});
  }
  return waits;
}

nlohmann::json Report(const Model& m) {
  nlohmann::json kernels = nlohmann::json::array(), copies = nlohmann::json::array();
  std::unordered_set<uint64_t> operator_ids;
  size_t runtime_calls = 0, driver_calls = 0;
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    const std::string_view category = m.Str(m.slices.category[s]);
    if (category == "cpu_op") {
      if (auto id = Arg(m, m.slices.args[s], "External id")) operator_ids.insert(*id);
    }
    if (category == "cuda_runtime") ++runtime_calls;
    if (category == "cuda_driver") ++driver_calls;
  }
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    const std::string_view category = m.Str(m.slices.category[s]);
    if (category != "kernel" && category != "gpu_memcpy") continue;
    const uint32_t args = m.slices.args[s];
    nlohmann::json row = {{"name", m.Str(m.slices.name[s])},
                          {"device", m.processes.device_id[m.ProcessOfThread(m.ThreadOfSlice(s))]},
                          {"stream", Arg(m, args, "stream").value_or(0)},
                          {"start_ns", m.slices.ts[s]},
                          {"dur_ns", m.slices.dur(s)},
                          {"correlation", Arg(m, args, "correlation").value_or(0)}};
    if (category == "kernel") {
      auto external = Arg(m, args, "External id");
      row["external_id"] = external ? nlohmann::json(*external) : nlohmann::json(nullptr);
      row["operator_found"] = external.has_value() && operator_ids.contains(*external);
      row["graph_node"] = Arg(m, args, "graph node id").value_or(0);
      nlohmann::json metrics = nlohmann::json::object();
      if (args != 0) {
        for (uint32_t i = m.args.set_begin[args]; i < m.args.set_begin[args + 1]; ++i) {
          const std::string_view key = m.Str(m.args.key[i]);
          if (key.starts_with("metric.")) {
            metrics[std::string(key.substr(7))] = std::bit_cast<double>(m.args.value[i]);
          }
        }
      }
      row["metrics"] = metrics;
      kernels.push_back(row);
    } else {
      row["bytes"] = Arg(m, args, "bytes").value_or(0);
      copies.push_back(row);
    }
  }
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = 0; i < m.steps.size(); ++i) {
    steps.push_back(
        {{"step", m.steps.step[i]}, {"start_ns", m.steps.ts[i]}, {"end_ns", m.steps.end[i]}});
  }
  // mstx ranges and their device time on a stream (null when they have none).
  nlohmann::json ranges = nlohmann::json::array();
  for (size_t i = 0; i < m.markers.size(); ++i) {
    if (m.markers.is_instant[i]) continue;
    const uint32_t row = m.markers.row[i];
    const uint32_t device = m.markers.device_slice(i);
    nlohmann::json range = {{"name", m.Str(m.slices.name[row])},
                            {"start_ns", m.slices.ts[row]},
                            {"end_ns", m.slices.end[row]},
                            {"device", nullptr}};
    if (device != aiprof::model::kNoRow) {
      range["device"] = {{"stream", Arg(m, m.slices.args[device], "stream").value_or(0)},
                         {"start_ns", m.slices.ts[device]},
                         {"end_ns", m.slices.end[device]}};
    }
    ranges.push_back(range);
  }
  nlohmann::json metrics_status = nlohmann::json::array();
  for (size_t i = 0; i < m.instants.size(); ++i) {
    if (m.Str(m.instants.category[i]) != "cuda_metrics") continue;
    metrics_status.push_back({{"status", Arg(m, m.instants.args[i], "status").value_or(0)},
                              {"message", m.Str(m.instants.name[i])}});
  }
  size_t ac2g = 0;
  for (size_t f = 0; f < m.flows.size(); ++f) ac2g += m.Str(m.flows.category[f]) == "ac2g";
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& file : m.files) {
    if (!file.error.empty()) problems.push_back(file.path + ": " + file.error);
    if (!file.report.clean()) problems.push_back(file.path + ": " + file.report.Summary());
  }
  return {{"kernels", kernels},
          {"copies", copies},
          {"runtime_calls", runtime_calls},
          {"driver_calls", driver_calls},
          {"ac2g_flows", ac2g},
          {"steps", steps},
          {"mstx_ranges", ranges},
          {"event_waits", EventWaits(m)},
          {"metrics_status", metrics_status},
          {"cpu_ops_with_external_id", operator_ids.size()},
          {"dropped_records", m.drops.total()},
          {"problems", problems}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, csv_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--csv-dir" && i + 1 < argc) {
      csv_dir = argv[++i];
    } else if (input.empty() && !arg.starts_with("--")) {
      input = arg;
    } else {
      std::fprintf(stderr, "usage: %s <PROF_dir or parent> [--csv-dir DIR]\n", argv[0]);
      return 2;
    }
  }
  if (input.empty()) {
    std::fprintf(stderr, "usage: %s <PROF_dir or parent> [--csv-dir DIR]\n", argv[0]);
    return 2;
  }
  std::string error;
  const std::vector<std::string> dirs = aiprof::model::FindProfDirs(input, &error);
  if (dirs.empty()) {
    std::fprintf(stderr, "aiprof_cuda_report: %s\n", error.c_str());
    return 1;
  }
  std::vector<std::string> files;
  for (const std::string& dir : dirs) {
    for (std::string& file : aiprof::model::ListRawFiles(dir)) files.push_back(std::move(file));
  }
  const Model model = aiprof::model::ParseFiles(files);
  if (!csv_dir.empty()) {
    std::vector<std::string> written, errors;
    aiprof::exporter::SummaryTarget target{csv_dir, "report", aiprof::exporter::SummaryFormat::kCsv,
                                           &written, &errors};
    aiprof::exporter::WriteCudaSummaries(model, target);
    for (const std::string& problem : errors) {
      std::fprintf(stderr, "aiprof_cuda_report: %s\n", problem.c_str());
    }
    if (!errors.empty()) return 1;
  }
  std::printf("%s\n", Report(model).dump(1).c_str());
  return 0;
}
