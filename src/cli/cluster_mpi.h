// `mpirun -n K aiprof cluster ...`: the ranks are split across the K processes (shared
// storage: every process sees the same directory), each summarises its share with the
// threaded code, the serialised summaries are gathered to MPI rank 0, which merges and
// writes exactly what a single process would. Built only when CMake finds MPI.
#pragma once

#include <iosfwd>

#include "cli/cluster_request.h"

namespace aiprof::cli {

// Returns this process's exit code.
int RunClusterMpi(const ClusterRequest& request, std::ostream& out, std::ostream& err);

}  // namespace aiprof::cli
