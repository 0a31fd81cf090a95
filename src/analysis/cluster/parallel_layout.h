// The job's parallel layout: which pipeline stage each rank runs and its data-, pipeline-
// and tensor-parallel index (msprof-analyze's "DP Index", "PP Index", "TP Index" of
// cluster_step_trace_time), derived from what the ranks recorded, never assumed:
//
//   1. Named process groups. torch.distributed's group descriptions (group_desc, torch >=
//      2.3; torch_npu's parallel_group_info group_name) name a group's kind: "dp", "pp",
//      "tp" or Megatron's "DATA_PARALLEL_GROUP", "PIPELINE_MODEL_PARALLEL_GROUP",
//      "TENSOR_MODEL_PARALLEL_GROUP" (case aside; composite groups such as "tp_dp" are not
//      taken). A rank's index of a kind is its position in its group of that kind (global
//      ranks ascending, Megatron's order). In a job that names some kinds, a kind it names
//      nowhere has size 1 (index 0), as in Megatron where every kind exists.
//   2. Pipeline neighbours. Without named pipeline groups, the point-to-point transfers
//      whose two ends are known (the communication matrix) link the ranks of a pipeline:
//      its connected components are the pipelines, taken only when there are at least
//      two and they cover every rank with the same number of ranks each (a regular
//      layout; a stray send in a data-parallel job is no pipeline, nor is one component
//      of all ranks, which p2p alone cannot tell from other traffic).
//   The pipeline stage of a rank is its PP index; a stage is the ranks of one PP index.
//   Without named tensor-parallel groups, tensor parallelism is 1 when no recorded process
//   group of two or more ranks lies strictly inside a stage (else DP and TP cannot be told
//   apart: both indices unknown). Without named data-parallel groups, the data-parallel
//   group of a rank is the ranks of its stage with its TP index.
// Without pipelines found or named the layout is unknown: the cluster output keeps one
// stage of all ranks and leaves the index columns out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cluster/rank_summary.h"
#include "analysis/result_columns.h"

namespace aiprof::analysis::cluster {

struct ParallelPosition {
  int32_t dp_index = -1;  // -1: not known
  int32_t pp_index = -1;
  int32_t tp_index = -1;
};

struct ParallelLayout {
  bool known = false;
  std::string source;                             // "group names" or "p2p peers"; "" when unknown
  std::map<int32_t, ParallelPosition> positions;  // by rank; every rank when known
  // The ranks of each stage (ascending), by stage.
  std::vector<std::vector<int32_t>> stages;

  std::string Describe() const;  // one line for the summary; "" when unknown
};

// cluster_base_info.json's parallel_layout (only where it is known). The files also list
// the stages' ranks, which is no cell: their writer adds the list after these columns.
inline constexpr Column<ParallelLayout> kParallelLayoutColumns[] = {
    TextColumn<ParallelLayout>("source", "source", "", kFiles,
                               [](const ParallelLayout& l) { return l.source; }),
    {"pipeline_stages", "pipeline_stages", "", ColumnUnit::kCount, kFiles,
     [](const ParallelLayout& l) { return static_cast<int64_t>(l.stages.size()); }},
};

// "(0, 1, 2, 3)": msprof-analyze's spelling of a set of ranks.
std::string RankSet(const std::vector<int32_t>& ranks);

// `summaries` by rank; `p2p_links` the (src, dst) of transfers whose two ends are known.
ParallelLayout DeriveParallelLayout(const std::vector<RankSummary>& summaries,
                                    const std::vector<std::pair<int32_t, int32_t>>& p2p_links);

}  // namespace aiprof::analysis::cluster
