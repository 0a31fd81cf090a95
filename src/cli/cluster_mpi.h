// `mpirun -n K aiprof cluster ...`: the K processes take the ranks from a shared work
// queue (shared storage: every process sees the same directory), each summarises what it
// took with the threaded code, the serialised summaries are gathered to MPI process 0,
// which merges and writes exactly what a single process would. MPI's start-up and
// teardown run beside that work (cluster_mpi_session.h).
//
// MPI itself is in libaiprof_cluster_mpi.so (cluster_mpi_plugin.h), loaded here only when
// a launcher started this process, so `aiprof` does not depend on libmpi.
#pragma once

#include <iosfwd>

#include "cli/cluster_request.h"

namespace aiprof::cli {

// The number of processes an MPI launcher started, from its environment (OpenMPI, PMIx,
// MPICH/PMI, Slurm's srun with an MPI plugin); 1 when not started by one.
int MpiProcessesFromEnvironment();

// Returns this process's exit code. `request.jobs` 0: the host's cores shared among the
// MPI processes on the host.
int RunClusterMpi(const ClusterRequest& request, std::ostream& out, std::ostream& err);

}  // namespace aiprof::cli
