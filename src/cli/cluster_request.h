// What `aiprof cluster` was asked to do, shared by the threaded run (cluster_command.cc)
// and the MPI run (cluster_mpi.cc).
#pragma once

#include <string>

namespace aiprof::cli {

struct ClusterRequest {
  std::string input_dir;   // -d: the ranks' PROF_* directories or rank folders
  std::string output_dir;  // -o: cluster_analysis_output/ goes inside; default: input_dir
  unsigned outputs = 7;    // exporter::ClusterOutputs bits from -m
  unsigned jobs = 0;       // ranks in flight per process; 0: its share of the host's cores
  bool use_cache = true;
  bool critical_path = false;  // --critical-path: the critical rank per step
};

}  // namespace aiprof::cli
