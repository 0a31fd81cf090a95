// `aiprof cluster -d <dir> [-o out] [-m all|communication_matrix|communication_time|step_trace]
//  [--jobs=N] [--no-cache] [--critical-path]` (msprof-analyze cluster's form): the cluster analysis
//  of a
// distributed job's ranks (src/export/cluster/cluster_job.h). Started by mpirun/srun as
// several processes, it splits the ranks across them (cluster_mpi.h).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/cluster_mpi.h"
#include "cli/cluster_request.h"
#include "cli/command.h"
#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_job.h"

namespace aiprof::cli {

namespace {

int RunThreads(const ClusterRequest& request) {
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(request.input_dir);
  if (!discovery.error.empty()) {
    std::cerr << "aiprof cluster: " << discovery.error << "\n";
    return kExitUsage;
  }
  exporter::PrintDiscovery(discovery, std::cout);
  const unsigned jobs =
      request.jobs > 0 ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::cout << "aiprof cluster: " << jobs << " rank(s) in flight\n";
  std::vector<size_t> all(discovery.ranks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::string> problems;
  std::vector<analysis::cluster::RankSummary> summaries = exporter::SummarizeRanks(
      discovery.ranks, all, {jobs, request.use_cache, request.critical_path}, &problems,
      &std::cout);
  for (const std::string& problem : problems) std::cerr << "aiprof cluster: " << problem << "\n";
  return exporter::FinishCluster(std::move(summaries), {request.output_dir, request.outputs},
                                 std::cout, std::cerr);
}

}  // namespace

void AddClusterCommand(CLI::App& app) {
  struct Values {
    std::string input, output, mode = "all";
    unsigned jobs = 0;
    bool no_cache = false, critical_path = false;
  };
  auto values = std::make_shared<Values>();
  CLI::App* sub = app.add_subcommand(
      "cluster",
      "Cluster analysis of a distributed job: step breakdown per rank, communication wait vs "
      "transit, slow ranks and links; writes cluster_analysis_output/ (msprof-analyze cluster). "
      "Under mpirun/srun the ranks are split across the processes");
  sub->add_option("-d,--profiling_path", values->input,
                  "folder holding the ranks' PROF_* directories (or rank folders with them)")
      ->required();
  sub->add_option("-o,--output_path", values->output,
                  "where cluster_analysis_output/ is written (default: the -d folder)");
  sub->add_option("-m,--mode", values->mode, "which outputs: all (default) or one of them")
      ->check(CLI::IsMember({"all", "communication_matrix", "communication_time", "step_trace"}));
  sub->add_option("--jobs", values->jobs,
                  "ranks parsed at once (per process); peak memory grows with it "
                  "(default: the number of cores; under mpirun, the cores of the host "
                  "divided by the MPI processes on it)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value.find_first_not_of("0123456789") == std::string::npos &&
                value.find_first_not_of('0') != std::string::npos) {
              return "";
            }
            return "'" + value +
                   "' is not a number of ranks to parse at once: give 1 or more, or leave "
                   "--jobs out for one per core";
          },
          "N >= 1"));
  sub->add_flag("--no-cache", values->no_cache,
                "parse every rank again instead of reading the summary cached beside its data");
  sub->add_flag("--critical-path", values->critical_path,
                "also the critical rank of each step and why (each rank's own critical path, "
                "joined at the collectives; cluster_critical_path.csv)");
  sub->callback([values] {
    ClusterRequest request;
    request.critical_path = values->critical_path;
    request.input_dir = values->input;
    request.output_dir = values->output.empty() ? values->input : values->output;
    using exporter::ClusterOutputs;
    const std::string& mode = values->mode;
    request.outputs = static_cast<unsigned>(
        mode == "step_trace"             ? ClusterOutputs::kStepTrace
        : mode == "communication_time"   ? ClusterOutputs::kCommunicationTime
        : mode == "communication_matrix" ? ClusterOutputs::kCommunicationMatrix
                                         : ClusterOutputs::kAll);
    request.jobs = values->jobs;
    request.use_cache = !values->no_cache;
    const int code = MpiProcessesFromEnvironment() > 1
                         ? RunClusterMpi(request, std::cout, std::cerr)
                         : RunThreads(request);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
