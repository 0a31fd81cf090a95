// The terminal summary of `aiprof cluster`: ranks, hosts and dropped records, the clock
// check, the slowest ranks and why, slow links, and the steps where ranks diverge.
#pragma once

#include <iosfwd>

#include "analysis/cluster/cluster_merge.h"

namespace aiprof::exporter {

void PrintClusterReport(const analysis::cluster::ClusterResult& result, std::ostream& out);

}  // namespace aiprof::exporter
