// What the cluster analysis needs from one rank, and nothing more: the step breakdown
// rows of the rank's scope, its communication operations with their times, and who the
// rank is. Built from one rank's AnalysisSet right after its parse; the trace itself is
// dropped, so `aiprof cluster` holds a model only for the ranks in flight and a few
// hundred bytes per step and operation for every other rank. With the critical path asked
// for (AnalysisOptions::critical_path), each step also carries the rank's own critical path
// by category (critical_path/critical_path.h), for the job's critical rank per step
// (cluster_critical_path.h).
//
// A summary serialises to bytes (little-endian, versioned, deterministic: the same
// summary always gives the same bytes) for the MPI gather to rank 0 and for the on-disk
// cache beside each rank's raw data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis_set.h"
#include "analysis/communication_analysis.h"
#include "analysis/critical_path/path_category.h"
#include "model/model.h"
#include "model/rank_identity.h"

namespace aiprof::analysis::cluster {

inline constexpr int64_t kNoStep = -1;  // an operation outside every step

// A step as the ranks share it: (loop ordinal, number) of model/steps.h.
using StepKey = std::pair<uint32_t, int64_t>;
template <typename Row>
StepKey KeyOf(const Row& row) {
  return {row.loop, row.step};
}

// One row of the rank's step_trace_time (step_breakdown.h). Ranks share steps by loop
// ordinal and number (model/steps.h): rank r's loop k step n is every rank's.
struct RankStep : StepParts {
  int64_t step = kNoStep;
  uint32_t loop = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;  // window end on the scope
  // The rank's own critical path of the step (its step thread's window, which the scope's
  // window above need not equal), when the critical path was computed.
  bool has_path = false;
  int64_t path_begin_ns = 0;
  int64_t path_end_ns = 0;
  CategoryTimes path;
};

struct RankSummary {
  int32_t rank = -1;
  int32_t local_rank = -1;
  int32_t world_size = -1;
  int32_t device_id = -1;  // -1: a CPU-only rank (its scope is the host process)
  std::string host;
  std::vector<std::string> sources;  // the PROF_* directories parsed for this rank
  std::string step_source;           // StepSourceName
  uint64_t events = 0;               // slices in the rank's model
  uint64_t dropped_records = 0;      // overflow drops: shown in every cluster output
  std::vector<RankStep> steps;       // by step
  // The rank's operations from its communication analysis (communication_analysis.h),
  // wait not yet derived from the peers: the merge does that over all ranks.
  std::vector<CommOpTiming> communication;  // by start
  std::vector<CommGroup> groups;
  // The torch.distributed process groups the rank recorded (its identity's), for the
  // parallel layout (parallel_layout.h); empty when none were recorded.
  std::vector<model::ProcessGroupInfo> process_groups;
};

// The rank's summary: the scope (device or host process) carrying `rank` with the most
// busy time, that scope's step rows, the rank's communication operations on that scope,
// and its identity (model/rank_identity.h).
RankSummary BuildRankSummary(const model::Model& model, const AnalysisSet& set, int32_t rank,
                             const std::vector<std::string>& sources);

std::string SerializeRankSummary(const RankSummary& summary);
// False with `error` set on bytes that are no (current) summary.
bool DeserializeRankSummary(const std::string& bytes, RankSummary* summary, std::string* error);

}  // namespace aiprof::analysis::cluster
