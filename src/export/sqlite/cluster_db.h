// cluster.db: the cluster tables of `aiprof cluster` (msprof-analyze's cluster_analysis.db
// tables and columns, docs/cluster.md): ClusterStepTraceTime, ClusterCommunicationTime,
// ClusterCommunicationBandwidth, ClusterCommunicationMatrix, CommunicationGroupMapping,
// ClusterBaseInfo, HostInfo, RankDeviceMap; plus aiprof's diagnosis: ClusterRankDiagnosis,
// ClusterStageDiagnosis, ClusterSlowLink, ClusterDivergentStep, ClusterHostClock. Every table
// but ClusterBaseInfo and CommunicationGroupMapping holds described columns
// (analysis/result_columns.h) after the writer's keys.
#pragma once

#include <string>

#include "analysis/cluster/cluster_merge.h"

namespace aiprof::exporter {

// `outputs`: ClusterOutputs bits (cluster_files.h); the database is replaced if it exists.
bool WriteClusterDb(const analysis::cluster::ClusterResult& result, unsigned outputs,
                    const std::string& path, std::string* error);

}  // namespace aiprof::exporter
