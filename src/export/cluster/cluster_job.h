// `aiprof cluster`: finds the ranks under a directory, parses and analyses each rank on its
// own (at most `jobs` at once, in threads), keeps only its summary
// (analysis/cluster/rank_summary.h), merges the summaries and writes
// cluster_analysis_output/ plus a terminal summary. The MPI form (src/cli/cluster_mpi.cc)
// calls the same three steps with the ranks split across processes.
//
// Memory: a rank's model lives only while the rank is in flight, so the peak is about
//   jobs × (the largest rank's parse peak) + ranks × (its summary: ~100 B per step and
//   communication operation)
// (docs/cluster.md gives the measured figures).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/cluster/cluster_merge.h"
#include "analysis/cluster/rank_summary.h"

namespace aiprof::exporter {

// One rank's data: every run that names the rank: PROF_* directories (its own window plus
// those of processes it forked, DataLoader workers for instance) and Kineto traces (their
// distributedInfo's rank).
struct RankInput {
  int32_t rank = -1;
  std::vector<std::string> prof_dirs;  // the runs: PROF_* directories or trace files
  std::vector<std::string> files;      // what the parse reads
  std::string cache_dir;               // where its summary cache goes
  uint64_t raw_bytes = 0;
};

struct RankDiscovery {
  std::vector<RankInput> ranks;      // by rank
  std::vector<std::string> skipped;  // "<run>: why" for runs left out
  std::vector<std::string> notes;    // what the discovery said (model/discovery.h)
  std::string error;                 // set when nothing usable was found
};

// The runs in `dir` and below it (model::DiscoverRuns: rank folders, node folders,
// tensorboard_trace_handler folders), each one's rank from its info.json or, for a trace,
// its distributedInfo (model/rank_identity.h).
RankDiscovery DiscoverRanks(const std::string& dir);

// "Found N rank(s) ..." and one line per skipped directory to `out`.
void PrintDiscovery(const RankDiscovery& discovery, std::ostream& out);

struct SummarizeOptions {
  unsigned jobs = 1;      // ranks in flight at once
  bool use_cache = true;  // read/write <PROF_*>/aiprof_output/analysis/cluster_rank_summary.bin
  // Each rank's own critical path per step in its summary (--critical-path): the job's
  // critical rank per step (cluster_critical_path.h).
  bool critical_path = false;
  // Cores this process may use (0: all of the machine's); those the ranks in flight leave
  // over go to each rank's parse. MPI processes sharing a machine split its cores.
  unsigned cores = 0;
  // Set: a work queue shared with other processes (MPI). Each rank to summarise is
  // indices[next_ticket()] until the tickets pass the end; the call is serialised.
  // Unset: every index is summarised here.
  std::function<uint64_t()> next_ticket = nullptr;
};

// The indices of `ranks`, largest raw data first (ties by index): the order a work queue
// hands them out in, so the long ranks do not come last.
std::vector<size_t> RanksLargestFirst(const std::vector<RankInput>& ranks);

// The summaries of ranks[indices] (those this process took, with next_ticket), in that
// order; a rank that fails (no readable records)
// is left out with a line in `problems`. Progress lines go to `progress` (may be null).
std::vector<analysis::cluster::RankSummary> SummarizeRanks(const std::vector<RankInput>& ranks,
                                                           const std::vector<size_t>& indices,
                                                           const SummarizeOptions& options,
                                                           std::vector<std::string>* problems,
                                                           std::ostream* progress);

struct ClusterWriteOptions {
  std::string output_dir;  // cluster_analysis_output/ is created inside
  unsigned outputs = 7;    // ClusterOutputs bits
};

// Merges, writes the files and prints the terminal summary. Returns the exit code
// (src/cli/command.h).
int FinishCluster(std::vector<analysis::cluster::RankSummary> summaries,
                  const ClusterWriteOptions& options, std::ostream& out, std::ostream& err);

}  // namespace aiprof::exporter
