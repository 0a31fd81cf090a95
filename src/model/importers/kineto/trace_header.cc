#include "model/importers/kineto/trace_header.h"

#include <algorithm>
#include <cstdlib>

namespace aiprof::model::kineto {
namespace {

uint32_t UIntOf(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return 0;
  const double value = found->get<double>();
  return value > 0 && value < 4294967296.0 ? static_cast<uint32_t>(value) : 0;
}

// Kineto writes a group's ranks as a list, on-demand traces as its text ("[0, 1]").
std::vector<int32_t> RanksOf(const nlohmann::json& ranks) {
  nlohmann::json list = ranks;
  if (ranks.is_string()) list = nlohmann::json::parse(ranks.get<std::string>(), nullptr, false);
  std::vector<int32_t> out;
  if (!list.is_array()) return out;
  for (const auto& rank : list) {
    if (rank.is_number_integer()) out.push_back(rank.get<int32_t>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string StringOf(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.is_null() ? "" : value.dump();
}

// distributedInfo's pg_config (a list; an object keyed by group in some torch versions) →
// the "process_groups" list python/aiprof/profiler/_distributed.py records.
nlohmann::json ProcessGroups(const nlohmann::json& config, int32_t rank) {
  nlohmann::json groups = nlohmann::json::array();
  auto add = [&](const nlohmann::json& entry, const std::string& fallback_name) {
    if (!entry.is_object()) return;
    nlohmann::json group;
    group["name"] = entry.contains("pg_name") ? StringOf(entry["pg_name"]) : fallback_name;
    group["description"] = entry.contains("pg_desc") ? StringOf(entry["pg_desc"]) : "";
    std::string backend = entry.contains("backend_config") ? StringOf(entry["backend_config"])
                          : entry.contains("backend")      ? StringOf(entry["backend"])
                                                           : "";
    // "cuda:nccl" or "cpu:gloo,cuda:nccl": the backend of the first device type.
    const size_t colon = backend.find(':');
    if (colon != std::string::npos) {
      backend = backend.substr(colon + 1);
      backend = backend.substr(0, backend.find(','));
    }
    group["backend"] = backend;
    const std::vector<int32_t> ranks =
        entry.contains("ranks") ? RanksOf(entry["ranks"]) : std::vector<int32_t>{};
    group["ranks"] = ranks;
    const auto mine = std::find(ranks.begin(), ranks.end(), rank);
    group["group_rank"] = mine == ranks.end() ? -1 : static_cast<int32_t>(mine - ranks.begin());
    groups.push_back(std::move(group));
  };
  if (config.is_array()) {
    for (const auto& entry : config) add(entry, std::to_string(groups.size()));
  } else if (config.is_object()) {
    for (const auto& [name, entry] : config.items()) add(entry, name);
  }
  return groups;
}

}  // namespace

void TraceHeader::Add(std::string_view key, std::string_view value) {
  nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
  if (parsed.is_discarded()) {
    problems.push_back("top-level member \"" + std::string(key) + "\" is not valid JSON; ignored");
    return;
  }
  if (key == "baseTimeNanoseconds") {
    if (parsed.is_number_integer()) {
      has_base = true;
      base_ns = parsed.get<int64_t>();
    } else {
      problems.push_back("baseTimeNanoseconds is not an integer; ignored");
    }
  } else if (key == "deviceProperties") {
    if (parsed.is_array()) {
      for (auto& device : parsed) devices.push_back(std::move(device));
    }
  } else if (key == "distributedInfo") {
    distributed = std::move(parsed);
  } else if (key == "host_name" || key == "hostname") {
    host_name = StringOf(parsed);
  } else if (key == "aiprof") {
    written_by_aiprof = true;
    if (parsed.is_object() && parsed.contains("dropped_events") &&
        parsed["dropped_events"].is_number_unsigned()) {
      aiprof_dropped_events = parsed["dropped_events"].get<uint64_t>();
    }
  } else if (key != "schemaVersion" && key != "displayTimeUnit" && key != "traceName" &&
             key != "traceEvents") {
    user[std::string(key)] = std::move(parsed);
  } else if (key == "traceEvents") {
    problems.push_back("traceEvents is not an array; no event was read");
  }
}

int32_t HeaderRank(const TraceHeader& header) {
  const nlohmann::json& d = header.distributed;
  if (!d.is_object() || !d.contains("rank")) return -1;
  const nlohmann::json& rank = d["rank"];
  if (rank.is_number_integer()) return rank.get<int32_t>();
  if (rank.is_string()) {
    const std::string text = rank.get<std::string>();
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (end != text.c_str() && *end == '\0' && value >= 0) return static_cast<int32_t>(value);
  }
  return -1;
}

std::string ProcessMetadataJson(const TraceHeader& header, const std::string& trace_path) {
  nlohmann::json metadata = nlohmann::json::object();
  metadata["source"] = "kineto";
  metadata["trace"] = trace_path;
  if (!header.host_name.empty()) metadata["hostname"] = header.host_name;
  nlohmann::json extra = nlohmann::json::object();
  const nlohmann::json& d = header.distributed;
  const int32_t rank = HeaderRank(header);
  if (d.is_object()) {
    nlohmann::json distributed = nlohmann::json::object();
    if (rank >= 0) {
      metadata["rank"] = rank;
      distributed["rank"] = rank;
    }
    if (d.contains("world_size")) {
      const nlohmann::json& size = d["world_size"];
      const int32_t world = size.is_number_integer() ? size.get<int32_t>()
                            : size.is_string()       ? std::atoi(size.get<std::string>().c_str())
                                                     : -1;
      if (world > 0) {
        metadata["world_size"] = world;
        distributed["world_size"] = world;
      }
    }
    if (d.contains("backend")) distributed["backend"] = StringOf(d["backend"]);
    if (d.contains("pg_config"))
      distributed["process_groups"] = ProcessGroups(d["pg_config"], rank);
    if (d.contains("nccl_version")) distributed["nccl_version"] = StringOf(d["nccl_version"]);
    extra["distributed"] = std::move(distributed);
  }
  for (const auto& [key, value] : header.user.items()) extra["user." + key] = value;
  if (!extra.empty()) metadata["metadata"] = std::move(extra);
  return metadata.dump();
}

DeviceProperties ReadDeviceProperties(const nlohmann::json& device, StringPool& strings) {
  DeviceProperties row;
  if (device.contains("name") && device["name"].is_string()) {
    row.name = strings.Intern(device["name"].get<std::string>());
  }
  if (device.contains("totalGlobalMem") && device["totalGlobalMem"].is_number_unsigned()) {
    row.total_memory = device["totalGlobalMem"].get<uint64_t>();
  }
  row.sm_count = UIntOf(device, "numSms");
  row.compute_major = UIntOf(device, "computeMajor");
  row.compute_minor = UIntOf(device, "computeMinor");
  row.max_threads_per_block = UIntOf(device, "maxThreadsPerBlock");
  row.warp_size = UIntOf(device, "warpSize");
  const uint32_t threads_per_sm = UIntOf(device, "maxThreadsPerMultiprocessor");
  if (row.warp_size > 0) row.max_warps_per_sm = threads_per_sm / row.warp_size;
  row.registers_per_block = UIntOf(device, "regsPerBlock");
  row.registers_per_sm = UIntOf(device, "regsPerMultiprocessor");
  row.shared_memory_per_block = UIntOf(device, "sharedMemPerBlock");
  row.shared_memory_per_sm = UIntOf(device, "sharedMemPerMultiprocessor");
  return row;
}

}  // namespace aiprof::model::kineto
