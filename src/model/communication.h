// Communication operations found in the model: collectives and point-to-point transfers
// of a distributed job, classified from what the sources already record (no source of
// its own):
//   - framework backend ranges: the work ranges PyTorch's process-group backends open
//     around each collective, "gloo:all_reduce", "nccl:all_gather", "mpi:...", "ucc:..."
//     (RecordFunction, recorded by the torch source; with record_shapes their inputs give
//     the message size). The "c10d::allreduce_" dispatcher ops around them only enqueue
//     the work and are not counted, so each collective is counted once per rank.
//   - NCCL kernels: device slices named ncclKernel_* / ncclDevKernel_* (CUDA source).
//   - NCCL API ranges: NVTX ranges of domain "NCCL" (NCCL >= 2.17, NVTX injection), used
//     only for a process without backend ranges (a program calling NCCL directly).
// Exporters use ClassifyCommunication; the parser calls AnnotateCommunication once so the
// timeline shows the operations with Kineto's collective argument names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

enum class CommOpType : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kBarrier,
  kSend,
  kRecv,
  kSendRecv,  // NCCL's fused point-to-point kernel (send, recv and all-to-all)
  kOther,
};

// "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "gather",
// "scatter", "barrier", "send", "recv", "sendrecv", "other".
std::string_view CommOpTypeName(CommOpType type);

enum class CommSource : uint8_t { kBackendRange, kNcclKernel, kNcclApi };
std::string_view CommSourceName(CommSource source);  // "backend", "nccl_kernel", "nccl_api"

inline constexpr int64_t kCommUnknown = -1;

struct CommOp {
  uint32_t slice = kNoRow;
  uint32_t process = kNoRow;  // ProcessTable row of the slice
  CommOpType type = CommOpType::kOther;
  CommSource source = CommSource::kBackendRange;
  std::string backend;  // "gloo", "nccl", "mpi", "ucc"
  std::string dtype;    // c10 spelling ("Float", "BFloat16"); "" when unknown
  int64_t in_nelems = kCommUnknown;
  int64_t out_nelems = kCommUnknown;
  int64_t bytes = kCommUnknown;  // message size as nccl-tests counts it (the larger side)
  uint32_t element_bytes = 0;    // 0 when the dtype is unknown
  // The group's size: the recorded process group's (process_group_call.h), else the job's
  // world size.
  int32_t group_size = -1;
  int32_t rank = -1;
  int32_t device_id = -1;  // -1: host
  // A send's receiver or a recv's sender (global rank) as the c10d dispatcher op names it
  // (p2p_peer.h; a group rank mapped through the recorded process group); -1 when not
  // recorded.
  int32_t peer = -1;
  // The process group it ran in (torch's pg name, model/process_group_call.h); "" for the
  // default group or when the data does not say.
  std::string process_group;
  // That group's entry in CommunicationOps::group_ranks; kNoGroup for the default group or
  // a group its rank did not list.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  uint32_t group = kNoGroup;
};

struct CommunicationOps {
  std::vector<CommOp> ops;  // one per communication operation, in slice order
  // The global ranks (ascending) of each recorded process group an operation ran in, once
  // per (process, group): a long job's hundreds of thousands of collectives share a few
  // groups, so the operations refer to their group (CommOp::group) instead of copying it.
  std::vector<std::vector<int32_t>> group_ranks;

  // The ranks of the operation's group; empty for the default group or when not recorded.
  const std::vector<int32_t>& GroupRanks(const CommOp& op) const;
};

CommunicationOps ClassifyCommunication(const Model& model);

// Bytes per ns == GB/s; < 0 when the size or the duration is unknown.
double AlgorithmBandwidthGBps(const CommOp& op, int64_t duration_ns);

// Gives each operation Kineto's collective arguments ("Collective name", "dtype",
// "In msg nelems", "Out msg nelems", "Group size", "Rank") plus "In msg size",
// "Out msg size" (bytes) and "algbw (GB/s)" where known, and moves framework backend
// ranges to category "collective_comm" (Kineto's ActivityType::COLLECTIVE_COMM).
// Idempotent.
void AnnotateCommunication(Model& model);

}  // namespace aiprof::model
