// `aiprof cluster -d <dir> [-o out] [-m all|communication_matrix|communication_time|step_trace]
//  [--jobs=N] [--no-cache]` (msprof-analyze cluster's form): the cluster analysis of a
// distributed job's ranks (src/export/cluster/cluster_job.h). Started by mpirun/srun as
// several processes, it splits the ranks across them (cluster_mpi.h).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/cluster_request.h"
#include "cli/command.h"
#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_job.h"
#ifdef AIPROF_HAVE_MPI
#include "cli/cluster_mpi.h"
#endif

namespace aiprof::cli {

namespace {

// The number of processes an MPI launcher started, from its environment (OpenMPI, PMIx,
// MPICH/PMI, Slurm's srun with an MPI plugin); 1 when not started by one.
int MpiProcessesFromEnvironment() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  }
  return 1;
}

int RunThreads(const ClusterRequest& request) {
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(request.input_dir);
  if (!discovery.error.empty()) {
    std::cerr << "aiprof cluster: " << discovery.error << "\n";
    return kExitUsage;
  }
  exporter::PrintDiscovery(discovery, std::cout);
  std::cout << "aiprof cluster: " << request.jobs << " rank(s) in flight\n";
  std::vector<size_t> all(discovery.ranks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::string> problems;
  std::vector<analysis::cluster::RankSummary> summaries = exporter::SummarizeRanks(
      discovery.ranks, all, {request.jobs, request.use_cache}, &problems, &std::cout);
  for (const std::string& problem : problems) std::cerr << "aiprof cluster: " << problem << "\n";
  return exporter::FinishCluster(std::move(summaries), {request.output_dir, request.outputs},
                                 std::cout, std::cerr);
}

}  // namespace

void AddClusterCommand(CLI::App& app) {
  struct Values {
    std::string input, output, mode = "all";
    unsigned jobs = 0;
    bool no_cache = false;
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
                  "(default: the number of cores)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--no-cache", values->no_cache,
                "parse every rank again instead of reading the summary cached beside its data");
  sub->callback([values] {
    ClusterRequest request;
    request.input_dir = values->input;
    request.output_dir = values->output.empty() ? values->input : values->output;
    using exporter::ClusterOutputs;
    const std::string& mode = values->mode;
    request.outputs = static_cast<unsigned>(
        mode == "step_trace"             ? ClusterOutputs::kStepTrace
        : mode == "communication_time"   ? ClusterOutputs::kCommunicationTime
        : mode == "communication_matrix" ? ClusterOutputs::kCommunicationMatrix
                                         : ClusterOutputs::kAll);
    request.jobs =
        values->jobs > 0 ? values->jobs : std::max(1u, std::thread::hardware_concurrency());
    request.use_cache = !values->no_cache;
    int code = kExitOk;
    if (MpiProcessesFromEnvironment() > 1) {
#ifdef AIPROF_HAVE_MPI
      code = RunClusterMpi(request, std::cout, std::cerr);
#else
      std::cerr << "aiprof cluster: started by an MPI launcher as one of "
                << MpiProcessesFromEnvironment()
                << " processes, but this aiprof was built without MPI. Install OpenMPI "
                   "(apt-get install openmpi-bin libopenmpi-dev, or scripts/install-deps.sh) "
                   "and rebuild aiprof, or run `aiprof cluster` once without mpirun (it "
                   "parses --jobs ranks at once in threads)\n";
      code = kExitUsage;
#endif
    } else {
      code = RunThreads(request);
    }
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
