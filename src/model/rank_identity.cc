#include "model/rank_identity.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace aiprof::model {
namespace {

int32_t IntOr(const nlohmann::json& object, const char* key, int32_t fallback) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->get<int32_t>() : fallback;
}

std::string StringOr(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// "process_groups" as python/aiprof/profiler/_distributed.py records them.
std::vector<ProcessGroupInfo> ReadGroups(const nlohmann::json& distributed) {
  std::vector<ProcessGroupInfo> groups;
  const auto found = distributed.find("process_groups");
  if (found == distributed.end() || !found->is_array()) return groups;
  for (const auto& entry : *found) {
    if (!entry.is_object()) continue;
    ProcessGroupInfo group;
    group.name = StringOr(entry, "name");
    group.description = StringOr(entry, "description");
    group.backend = StringOr(entry, "backend");
    group.group_rank = IntOr(entry, "group_rank", -1);
    const auto ranks = entry.find("ranks");
    if (ranks != entry.end() && ranks->is_array()) {
      for (const auto& rank : *ranks) {
        if (rank.is_number_integer()) group.ranks.push_back(rank.get<int32_t>());
      }
    }
    std::sort(group.ranks.begin(), group.ranks.end());
    groups.push_back(std::move(group));
  }
  return groups;
}

std::string JobOf(const nlohmann::json& metadata) {
  const auto environment = metadata.find("environment");
  if (environment == metadata.end() || !environment->is_object()) return "";
  const std::string address = StringOr(*environment, "MASTER_ADDR");
  const std::string port = StringOr(*environment, "MASTER_PORT");
  if (!address.empty() && !port.empty()) return address + ":" + port;
  const std::string slurm = StringOr(*environment, "SLURM_JOB_ID");
  return slurm.empty() ? "" : "slurm:" + slurm;
}

}  // namespace

RankIdentity ReadRankIdentity(std::string_view metadata_json) {
  RankIdentity identity;
  if (metadata_json.empty()) return identity;
  const auto metadata = nlohmann::json::parse(metadata_json, nullptr, false);
  if (!metadata.is_object()) return identity;
  identity.host = StringOr(metadata, "hostname");
  identity.rank = IntOr(metadata, "rank", -1);
  identity.local_rank = IntOr(metadata, "local_rank", -1);
  identity.world_size = IntOr(metadata, "world_size", -1);
  identity.local_world_size = IntOr(metadata, "local_world_size", -1);
  if (identity.rank >= 0) identity.source = "environment";
  identity.job = JobOf(metadata);
  // torch.distributed knows the job's truth even when the launcher set no variable
  // (torch.multiprocessing.spawn): its values win.
  const auto extra = metadata.find("metadata");
  if (extra == metadata.end() || !extra->is_object()) return identity;
  const auto distributed = extra->find("distributed");
  if (distributed == extra->end() || !distributed->is_object()) return identity;
  const int32_t rank = IntOr(*distributed, "rank", -1);
  if (rank >= 0) {
    identity.rank = rank;
    identity.source = "torch.distributed";
  }
  identity.world_size = IntOr(*distributed, "world_size", identity.world_size);
  identity.backend = StringOr(*distributed, "backend");
  identity.groups = ReadGroups(*distributed);
  return identity;
}

std::vector<RankIdentity> RankIdentities(const Model& model) {
  const ProcessTable& p = model.processes;
  std::vector<RankIdentity> identities(p.size());
  for (uint32_t row = 0; row < p.size(); ++row) {
    if (p.device_id[row] < 0) identities[row] = ReadRankIdentity(p.metadata[row]);
  }
  for (uint32_t row = 0; row < p.size(); ++row) {
    if (p.device_id[row] < 0) continue;
    uint32_t owner = kNoRow;
    uint32_t host_processes = 0;
    for (uint32_t other = 0; other < p.size(); ++other) {
      if (p.device_id[other] >= 0 || p.host[other] != p.host[row]) continue;
      ++host_processes;
      if (p.rank[row] >= 0 && identities[other].rank == p.rank[row]) owner = other;
      if (p.rank[row] < 0 && owner == kNoRow) owner = other;
    }
    if (owner != kNoRow && (p.rank[row] >= 0 || host_processes == 1)) {
      identities[row] = identities[owner];
    }
  }
  return identities;
}

}  // namespace aiprof::model
