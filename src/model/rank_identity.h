// A process's place in a distributed job: rank, local rank, world size, local world size,
// host, and the process groups it belongs to. The runtime writes what the launcher's
// environment says into info.json when a window opens (RANK / WORLD_SIZE / LOCAL_RANK /
// LOCAL_WORLD_SIZE, Slurm's SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID, OpenMPI's
// OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK / _LOCAL_SIZE); the Python API adds what
// torch.distributed says ("distributed" under the window's "metadata": backend, rank,
// world size, process groups). ReadRankIdentity is the one reader of both: the parser
// takes the process's rank from it, and every consumer (Kineto distributedInfo, info
// tables, the communication analysis) asks RankIdentities instead of parsing metadata.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

// One process group as torch.distributed names it (torch_npu's parallel_group_info,
// Kineto's pg_config).
struct ProcessGroupInfo {
  std::string name;            // "0", "1", ... (torch's pg name)
  std::string description;     // "default_pg", "undefined", a user's group_desc
  std::string backend;         // "gloo", "nccl"
  int32_t group_rank = -1;     // this process's rank inside the group
  std::vector<int32_t> ranks;  // global ranks of the group, ascending
};

struct RankIdentity {
  int32_t rank = -1;  // -1: unknown (not a distributed job, or not told)
  int32_t local_rank = -1;
  int32_t world_size = -1;
  int32_t local_world_size = -1;
  std::string host;     // hostname
  std::string backend;  // default group's backend ("gloo", "nccl"); "" unknown
  std::string source;   // "torch.distributed", "environment" or "" (unknown)
  // Which job the rank belongs to, so ranks of two runs in one directory are not taken for
  // peers: "MASTER_ADDR:MASTER_PORT" (torchrun, env://), "slurm:<SLURM_JOB_ID>", or "".
  std::string job;
  std::vector<ProcessGroupInfo> groups;  // from torch.distributed; empty otherwise

  bool known() const { return rank >= 0; }
};

// From one process's info.json/Metadata JSON: torch.distributed's values where the Python
// API recorded them, else the environment's. Unparseable or empty text: unknown.
RankIdentity ReadRankIdentity(std::string_view metadata_json);

// One per ProcessTable row. A device process (no metadata of its own) takes the identity of
// the host process of the same host and rank, or of the only host process of its host.
std::vector<RankIdentity> RankIdentities(const Model& model);

}  // namespace aiprof::model
