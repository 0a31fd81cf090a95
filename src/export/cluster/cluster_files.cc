#include "export/cluster/cluster_files.h"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "export/cluster/cluster_db.h"
#include "export/csv/summary_writer.h"

namespace aiprof::exporter {

namespace {

using analysis::CommMatrixEntry;
using analysis::CommOpTiming;
using analysis::cluster::ClusterResult;
using analysis::cluster::ClusterStepRow;
using ordered_json = nlohmann::ordered_json;

// Fixed decimals keep the files identical however the ranks were split.
double Round(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}
double Ms(int64_t ns) {
  return Round(static_cast<double>(ns) / 1e6, 6);
}
double Us(int64_t ns) {
  return Round(static_cast<double>(ns) / 1e3, 3);
}

std::string RankSet(const std::vector<int32_t>& ranks) {
  std::string text = "(";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + ")";
}

// The group key of the JSON files: the group's ranks, as msprof-analyze names groups.
std::map<std::string, std::string> GroupKeys(const ClusterResult& result) {
  std::map<std::string, std::string> keys;
  for (const analysis::CommGroup& group : result.groups)
    keys[group.name] = group.ranks.empty() ? group.name : RankSet(group.ranks);
  return keys;
}

std::string GroupKey(const std::map<std::string, std::string>& keys, const std::string& group) {
  const auto found = keys.find(group);
  return found == keys.end() ? group : found->second;
}

bool WriteJson(const ordered_json& json, const std::string& path, std::vector<std::string>* written,
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

void WriteStepTrace(const ClusterResult& result, const std::string& dir,
                    std::vector<std::string>* written, std::vector<std::string>* errors) {
  SummaryTarget target;
  target.dir = dir;
  target.written = written;
  target.errors = errors;
  SummaryWriter w(target, "cluster_step_trace_time",
                  {"Step", "Type", "Index", "Computing", "Communication(Not Overlapped)",
                   "Overlapped", "Communication", "Free", "Stage", "Bubble",
                   "Communication(Not Overlapped and Exclude Receive)", "Preparing"},
                  result.step_rows.size(), UINT64_MAX);
  for (const ClusterStepRow& r : result.step_rows) {
    if (r.step == analysis::cluster::kNoStep) {
      w.NotApplicable();
    } else {
      w.Number(r.step);
    }
    w.PlainText(r.type == ClusterStepRow::Type::kRank ? "rank" : "stage").Text(r.index);
    w.Micros(r.computing_ns).Micros(r.communication_not_overlapped_ns).Micros(r.overlapped_ns);
    w.Micros(r.communication_ns).Micros(r.free_ns).Micros(r.stage_ns).Micros(r.bubble_ns);
    w.Micros(r.communication_not_overlapped_exclude_receive_ns).Micros(r.preparing_ns);
    w.EndRow();
  }
}

ordered_json TimeInfo(const analysis::CommTimeInfo& t) {
  return {{"Start Timestamp(us)", Us(t.start_ns)},
          {"Elapse Time(ms)", Ms(t.elapse_ns)},
          {"Transit Time(ms)", Ms(t.transit_ns)},
          {"Wait Time(ms)", Ms(t.wait_ns)},
          {"Synchronization Time(ms)", Ms(t.synchronization_ns)},
          {"Idle Time(ms)", Ms(t.idle_ns)},
          {"Wait Time Ratio", Round(t.wait_ratio(), 4)},
          {"Synchronization Time Ratio", Round(t.synchronization_ratio(), 4)}};
}

ordered_json BandwidthInfo(const analysis::CommBandwidthInfo& b) {
  ordered_json sizes = ordered_json::object();
  for (const auto& [bytes, entry] : b.size_distribution) {
    char key[32];
    std::snprintf(key, sizeof key, "%.6f", static_cast<double>(bytes) / 1e6);
    sizes[key] = {entry.first, Ms(entry.second)};
  }
  return {{"Transit Time(ms)", Ms(b.transit_ns)},
          {"Transit Size(MB)", Round(b.size_mb(), 6)},
          {"Bandwidth(GB/s)", Round(b.bandwidth_gbps(), 4)},
          {"Large Packet Ratio", Round(b.large_packet_ratio(), 4)},
          {"Size Distribution", std::move(sizes)}};
}

void WriteCommunication(const ClusterResult& result, const std::string& dir,
                        std::vector<std::string>* written, std::vector<std::string>* errors) {
  const std::map<std::string, std::string> keys = GroupKeys(result);
  ordered_json json = ordered_json::object();
  // Per step, group and rank: the sum of its operations ("Total Op Info").
  std::map<std::tuple<int64_t, std::string, int32_t>,
           std::pair<analysis::CommTimeInfo, std::map<std::string, analysis::CommBandwidthInfo>>>
      totals;
  for (const CommOpTiming& op : result.comm_ops) {
    const std::string step = ClusterStepKey(op.step), group = GroupKey(keys, op.group);
    const std::string transport(analysis::TransportTypeName(op.transport));
    ordered_json bandwidth = ordered_json::object();
    const analysis::CommBandwidthInfo info = op.bandwidth();
    bandwidth[transport] = BandwidthInfo(info);
    json[step][group][op.key()][std::to_string(op.rank)] = {
        {"Communication Time Info", TimeInfo(op.time)},
        {"Communication Bandwidth Info", std::move(bandwidth)}};
    auto& [time, bandwidths] = totals[{op.step, group, op.rank}];
    time.Add(op.time);
    bandwidths[transport].Add(info);
  }
  for (const auto& [key, total] : totals) {
    const auto& [step, group, rank] = key;
    ordered_json bandwidth = ordered_json::object();
    for (const auto& [transport, info] : total.second) bandwidth[transport] = BandwidthInfo(info);
    json[ClusterStepKey(step)][group]["Total Op Info"][std::to_string(rank)] = {
        {"Communication Time Info", TimeInfo(total.first)},
        {"Communication Bandwidth Info", std::move(bandwidth)}};
  }
  WriteJson(json, dir + "/cluster_communication.json", written, errors);
}

void WriteMatrix(const ClusterResult& result, const std::string& dir,
                 std::vector<std::string>* written, std::vector<std::string>* errors) {
  const std::map<std::string, std::string> keys = GroupKeys(result);
  ordered_json json = ordered_json::object();
  for (const CommMatrixEntry& e : result.matrix) {
    const std::string link = std::to_string(e.src_rank) + "-" + std::to_string(e.dst_rank);
    json[ClusterStepKey(e.step)][GroupKey(keys, e.group)][e.name + "@" + e.group][link] = {
        {"Transport Type", std::string(analysis::TransportTypeName(e.transport))},
        {"Transit Size(MB)", Round(static_cast<double>(e.bytes) / 1e6, 6)},
        {"Transit Time(ms)", Ms(e.transit_ns)},
        {"Bandwidth(GB/s)", Round(e.bandwidth_gbps(), 4)}};
  }
  WriteJson(json, dir + "/cluster_communication_matrix.json", written, errors);
}

void WriteBaseInfo(const ClusterResult& result, const std::string& dir,
                   std::vector<std::string>* written, std::vector<std::string>* errors) {
  ordered_json json;
  json["world_size"] = result.world_size;
  json["ranks_analysed"] = result.ranks.size();
  json["dropped_records"] = result.dropped_records;
  json["unmatched_communication_ops"] = result.unmatched_ops;
  ordered_json ranks = ordered_json::array();
  for (const analysis::cluster::RankInfo& r : result.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"device_id", r.device_id},
                     {"step_source", r.step_source},
                     {"events", r.events},
                     {"dropped_records", r.dropped_records},
                     {"sources", r.sources}});
  }
  json["ranks"] = std::move(ranks);
  ordered_json clock;
  clock["description"] = result.clock.Describe();
  clock["same_host_end_spread_ms"] = Ms(result.clock.same_host_end_spread_ns);
  clock["hosts"] = ordered_json::array();
  for (const analysis::cluster::HostClock& h : result.clock.hosts) {
    clock["hosts"].push_back({{"host", h.host},
                              {"ranks", h.ranks},
                              {"offset_ms", Ms(h.offset_ns)},
                              {"uncertainty_ms", Ms(h.uncertainty_ns)},
                              {"samples", h.samples}});
  }
  json["clock_alignment"] = std::move(clock);
  ordered_json verdicts = ordered_json::array();
  for (const analysis::cluster::RankVerdict& v : result.verdicts) {
    verdicts.push_back({{"rank", v.rank},
                        {"steps", v.steps},
                        {"own_time_per_step_ms", Round(v.own_ns / 1e6, 6)},
                        {"computing_per_step_ms", Round(v.computing_ns / 1e6, 6)},
                        {"data_preparation_per_step_ms", Round(v.preparing_ns / 1e6, 6)},
                        {"free_per_step_ms", Round(v.free_ns / 1e6, 6)},
                        {"communication_wait_per_step_ms", Round(v.communication_wait_ns / 1e6, 6)},
                        {"slow", v.slow},
                        {"reason", v.reason},
                        {"excess_per_step_ms", Round(v.excess_ns / 1e6, 6)}});
  }
  json["ranks_diagnosis"] = std::move(verdicts);
  ordered_json links = ordered_json::array();
  for (const analysis::cluster::SlowLink& l : result.slow_links) {
    links.push_back({{"transport", l.transport},
                     {"rank", l.rank},
                     {"bandwidth_gbps", Round(l.bandwidth_gbps, 4)},
                     {"median_gbps", Round(l.median_gbps, 4)}});
  }
  json["slow_links"] = std::move(links);
  ordered_json steps = ordered_json::array();
  for (const analysis::cluster::DivergentStep& d : result.divergent_steps) {
    steps.push_back({{"step", d.step},
                     {"slowest_rank", d.slowest_rank},
                     {"fastest_rank", d.fastest_rank},
                     {"max_own_ms", Ms(d.max_own_ns)},
                     {"min_own_ms", Ms(d.min_own_ns)},
                     {"spread", Round(d.spread, 4)}});
  }
  json["divergent_steps"] = std::move(steps);
  WriteJson(json, dir + "/cluster_base_info.json", written, errors);
}

}  // namespace

std::string ClusterStepKey(int64_t step) {
  return step == analysis::cluster::kNoStep ? "step" : "step" + std::to_string(step);
}

void WriteClusterOutputs(const ClusterResult& result, unsigned outputs, const std::string& dir,
                         std::vector<std::string>* written, std::vector<std::string>* errors) {
  const auto selected = [&](ClusterOutputs output) {
    return (outputs & static_cast<unsigned>(output)) != 0;
  };
  if (selected(ClusterOutputs::kStepTrace)) WriteStepTrace(result, dir, written, errors);
  if (selected(ClusterOutputs::kCommunicationTime))
    WriteCommunication(result, dir, written, errors);
  if (selected(ClusterOutputs::kCommunicationMatrix)) WriteMatrix(result, dir, written, errors);
  WriteBaseInfo(result, dir, written, errors);
  std::string error;
  const std::string db = dir + "/cluster.db";
  if (WriteClusterDb(result, outputs, db, &error)) {
    written->push_back(db);
  } else {
    errors->push_back(error);
  }
}

}  // namespace aiprof::exporter
