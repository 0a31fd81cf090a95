// The files of `aiprof cluster`, in <out>/cluster_analysis_output/ (msprof-analyze's names
// and layouts, docs/cluster.md explains every column):
//   cluster_step_trace_time.csv        one row per step × rank plus a stage row per step (µs)
//   cluster_communication.json         step → group → operation → rank → time/bandwidth
//   cluster_communication_matrix.json  step → group → operation → "src-dst" → link figures
//   cluster_base_info.json             ranks, hosts, sources, dropped records, clock check,
//                                      diagnosis (what the terminal summary says)
//   cluster_critical_path.csv          with --critical-path: per step, the rank that gates it,
//                                      the job's path on it, why (its own path by category)
//                                      and the other ranks' wait
//   cluster.db                         the same tables (export/sqlite/cluster_db.h)
#pragma once

#include <string>
#include <vector>

#include "analysis/cluster/cluster_merge.h"
#include "format/output_layout.h"

namespace aiprof::exporter {

enum class ClusterOutputs : unsigned {
  kStepTrace = 1u << 0,
  kCommunicationTime = 1u << 1,
  kCommunicationMatrix = 1u << 2,
  kAll = 7u,
};

// "step3", or "step" for operations outside every step (msprof-analyze's keys).
std::string ClusterStepKey(int64_t step, uint32_t loop, bool several_loops);

// Writes the selected files (and cluster.db with their tables) into `dir`, which must
// exist. Paths written and errors are appended.
void WriteClusterOutputs(const analysis::cluster::ClusterResult& result, unsigned outputs,
                         const std::string& dir, std::vector<std::string>* written,
                         std::vector<std::string>* errors);

}  // namespace aiprof::exporter
