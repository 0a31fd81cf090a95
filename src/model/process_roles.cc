#include "model/process_roles.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace aiprof::model {
namespace {

int64_t IntOr(const nlohmann::json& object, const char* key, int64_t fallback) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->get<int64_t>() : fallback;
}

struct ProcessFacts {
  int64_t ppid = -1;
  int64_t launcher_pid = -1;  // the launcher that started this process (its options)
  int64_t start_ns = 0;
};

ProcessFacts ReadFacts(std::string_view metadata_json) {
  ProcessFacts facts;
  if (metadata_json.empty()) return facts;
  const auto metadata = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!metadata.is_object()) return facts;
  facts.ppid = IntOr(metadata, "ppid", -1);
  facts.start_ns = IntOr(metadata, "start_realtime_ns", 0);
  const auto options = metadata.find("options");
  if (options != metadata.end() && options->is_object()) {
    facts.launcher_pid = IntOr(*options, "launcher_pid", -1);
  }
  return facts;
}

// Per process: whether one of its threads fetched batches from a DataLoader (torch's
// "enumerate(DataLoader)#..." ranges). Only asked when the run has child processes.
std::vector<uint8_t> FetchesFromDataLoader(const Model& model) {
  std::vector<uint8_t> is_fetch(model.strings.size(), 0);
  for (StringId id = 0; id < model.strings.size(); ++id) {
    const std::string_view name = model.strings.Get(id);
    is_fetch[id] =
        name.starts_with("enumerate(DataLoader)") || name.starts_with("enumerate(DataPipe)");
  }
  std::vector<uint8_t> fetches(model.processes.size(), 0);
  for (size_t row = 0; row < model.slices.size(); ++row) {
    if (is_fetch[model.slices.name[row]]) {
      fetches[model.ProcessOfThread(model.ThreadOfSlice(static_cast<uint32_t>(row)))] = 1;
    }
  }
  return fetches;
}

}  // namespace

std::string_view ProcessRoleName(ProcessRole role) {
  switch (role) {
    case ProcessRole::kMain:
      return "main";
    case ProcessRole::kDataLoaderWorker:
      return "DataLoader worker";
    case ProcessRole::kChild:
      return "child";
    case ProcessRole::kLauncher:
      return "launcher";
    case ProcessRole::kDevice:
      return "device";
  }
  return "main";
}

std::vector<ProcessRoleInfo> ProcessRoles(const Model& model) {
  const ProcessTable& p = model.processes;
  std::vector<ProcessRoleInfo> roles(p.size());
  std::vector<ProcessFacts> facts(p.size());
  std::set<std::pair<StringId, int64_t>> launchers;  // (host, pid)
  std::map<std::pair<StringId, int64_t>, uint32_t> by_pid;
  for (uint32_t row = 0; row < p.size(); ++row) {
    facts[row] = ReadFacts(p.metadata[row]);
    roles[row].ppid = facts[row].ppid;
    if (facts[row].launcher_pid >= 0) launchers.emplace(p.host[row], facts[row].launcher_pid);
    if (p.device_id[row] < 0) by_pid.emplace(std::pair(p.host[row], int64_t{p.pid[row]}), row);
  }
  bool any_child = false;
  for (uint32_t row = 0; row < p.size(); ++row) {
    ProcessRoleInfo& info = roles[row];
    if (p.device_id[row] >= 0) {
      info.role = ProcessRole::kDevice;
    } else if (launchers.contains({p.host[row], int64_t{p.pid[row]}})) {
      info.role = ProcessRole::kLauncher;
    } else {
      auto parent = by_pid.find({p.host[row], info.ppid});
      if (parent != by_pid.end() && parent->second != row &&
          !launchers.contains({p.host[row], info.ppid})) {
        info.role = ProcessRole::kChild;
        info.parent = parent->second;
        any_child = true;
      }
    }
  }
  if (!any_child) return roles;
  const std::vector<uint8_t> fetches = FetchesFromDataLoader(model);
  std::map<std::pair<uint32_t, ProcessRole>, std::vector<uint32_t>> siblings;
  for (uint32_t row = 0; row < p.size(); ++row) {
    ProcessRoleInfo& info = roles[row];
    if (info.role != ProcessRole::kChild) continue;
    if (fetches[info.parent]) info.role = ProcessRole::kDataLoaderWorker;
    siblings[{info.parent, info.role}].push_back(row);
  }
  for (auto& [key, rows] : siblings) {
    std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
      return std::pair(facts[a].start_ns, p.pid[a]) < std::pair(facts[b].start_ns, p.pid[b]);
    });
    for (uint32_t i = 0; i < rows.size(); ++i) roles[rows[i]].ordinal = i;
  }
  return roles;
}

std::string ProcessRoleLabel(const Model& model, const std::vector<ProcessRoleInfo>& roles,
                             uint32_t process) {
  const ProcessRoleInfo& info = roles[process];
  std::string label;
  switch (info.role) {
    case ProcessRole::kMain:
    case ProcessRole::kLauncher:
      label = ProcessRoleName(info.role);
      break;
    case ProcessRole::kDataLoaderWorker:
      label = "DataLoader worker " + std::to_string(info.ordinal);
      break;
    case ProcessRole::kChild:
      label = "child of " + std::to_string(model.processes.pid[info.parent]);
      break;
    case ProcessRole::kDevice:
      label = "GPU " + std::to_string(model.processes.device_id[process]);
      break;
  }
  const int32_t rank = model.processes.rank[process];
  return rank >= 0 ? "rank " + std::to_string(rank) + " · " + label : label;
}

}  // namespace aiprof::model
