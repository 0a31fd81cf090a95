#include "cli/cluster_mpi.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cluster_mpi_plugin.h"
#include "cli/cluster_mpi_session.h"
#include "cli/command.h"
#include "export/cluster/cluster_job.h"

namespace aiprof::cli {

namespace {

constexpr const char* kPluginName = "libaiprof_cluster_mpi.so";

// The plugin beside the runtime libraries: $AIPROF_LIB_DIR, then <aiprof's dir>/../lib
// (the build tree and the Python package both lay them out so).
const AiprofClusterMpiApi* LoadPlugin(std::string* error) {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("AIPROF_LIB_DIR"); dir && *dir)
    candidates.push_back(std::string(dir) + "/" + kPluginName);
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((self.parent_path() / ".." / "lib" / kPluginName).string());
  std::string tried;
  for (const std::string& path : candidates) {
    if (!std::filesystem::exists(path, ec)) {
      tried += " " + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      *error = "cannot load " + path + ": " + dlerror() +
               " (is OpenMPI's libmpi installed? scripts/install-deps.sh)";
      return nullptr;
    }
    using Entry = const AiprofClusterMpiApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "aiprof_cluster_mpi_api"));
    const AiprofClusterMpiApi* api = entry ? entry() : nullptr;
    if (api == nullptr || api->abi != kAiprofClusterMpiAbi) {
      *error = path + " is from another aiprof build; rebuild aiprof";
      return nullptr;
    }
    return api;
  }
  *error = std::string(kPluginName) + " not found (looked for" + tried +
           "): this aiprof was built without MPI. Install OpenMPI (apt-get install "
           "openmpi-bin libopenmpi-dev, or scripts/install-deps.sh) and rebuild aiprof, or "
           "set AIPROF_LIB_DIR to the plugin's directory";
  return nullptr;
}

// A process's summaries as one buffer: count, then (size, bytes) per summary.
std::string Pack(const std::vector<analysis::cluster::RankSummary>& summaries) {
  std::string packed;
  auto put = [&packed](uint64_t value) {
    packed.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  put(summaries.size());
  for (const auto& summary : summaries) {
    const std::string bytes = analysis::cluster::SerializeRankSummary(summary);
    put(bytes.size());
    packed += bytes;
  }
  return packed;
}

bool Unpack(std::string_view packed, std::vector<analysis::cluster::RankSummary>& out,
            std::string* error) {
  size_t offset = 0;
  auto get = [&](uint64_t* value) {
    if (packed.size() - offset < sizeof *value) return false;
    std::memcpy(value, packed.data() + offset, sizeof *value);
    offset += sizeof *value;
    return true;
  };
  uint64_t count = 0;
  if (!get(&count)) {
    *error = "truncated summary buffer";
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!get(&size) || size > packed.size() - offset) {
      *error = "truncated summary buffer";
      return false;
    }
    analysis::cluster::RankSummary summary;
    if (!analysis::cluster::DeserializeRankSummary(std::string(packed.substr(offset, size)),
                                                   &summary, error))
      return false;
    offset += size;
    out.push_back(std::move(summary));
  }
  return true;
}

// mpirun binds each process to its own core when there are no more processes than cores
// (OpenMPI's default), which keeps the parse threads of the processes sharing a host from
// migrating onto each other. After the gather the other processes are done parsing, and
// process 0 merges and writes with two threads (the text files, and cluster.db beside them),
// which a single core would run one after the other. So process 0 takes the CPUs of its
// launcher (mpirun, orted or slurmstepd: the job's CPUs on this host) as well. Returns how
// many CPUs it may use now, or 0 when that did not change.
int TakeTheLaunchersCpus() {
  cpu_set_t mine, launcher;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 ||
      sched_getaffinity(getppid(), sizeof launcher, &launcher) != 0) {
    return 0;
  }
  cpu_set_t both;
  CPU_OR(&both, &mine, &launcher);
  if (CPU_EQUAL(&both, &mine) || sched_setaffinity(0, sizeof both, &both) != 0) return 0;
  return CPU_COUNT(&both);
}

}  // namespace

int MpiProcessesFromEnvironment() {
  return PlacementFromEnvironment().processes;
}

int RunClusterMpi(const ClusterRequest& request, std::ostream& out, std::ostream& err) {
  std::string error;
  const AiprofClusterMpiApi* mpi = LoadPlugin(&error);
  const LauncherPlacement placement = PlacementFromEnvironment();
  if (mpi == nullptr) {
    err << "aiprof cluster: started by an MPI launcher as one of " << placement.processes
        << " processes, but " << error
        << "; or run `aiprof cluster` once without mpirun (it parses --jobs ranks at once in "
           "threads)\n";
    return kExitUsage;
  }
  // MPI_Init runs on the session's thread while this one lists the ranks and parses.
  MpiSession session(mpi, placement);
  // The environment usually says where this process is; when it does not, MPI will.
  LauncherPlacement where = placement;
  if ((where.process < 0 || where.processes_on_host == 0) && !session.WaitUntilUp(&where, &error)) {
    err << "aiprof cluster: " << error << "\n";
    return kExitFailure;
  }
  const int me = where.process, on_host = where.processes_on_host;
  const std::string prefix = "aiprof cluster [MPI process " + std::to_string(me) + "/" +
                             std::to_string(where.processes) + "]: ";
  // The processes on one machine share its cores: each takes its part of them.
  const unsigned cores =
      std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(on_host));
  const unsigned jobs = request.jobs > 0 ? request.jobs : cores;

  // Every process lists the same shared directory, so all find the same ranks in the same
  // order without a message; process 0 reports what was found.
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(request.input_dir);
  if (!discovery.error.empty()) {
    if (me == 0) err << "aiprof cluster: " << discovery.error << "\n";
    return kExitUsage;
  }
  if (me == 0) {
    exporter::PrintDiscovery(discovery, out);
    out << "aiprof cluster: " << where.processes << " MPI processes (" << on_host
        << " on this host), " << jobs << " rank(s) in flight in each\n"
        << std::flush;
  }
  // The ranks are a work queue shared by the processes (largest first): a process that is
  // faster, or less loaded by other work on its machine, takes more of them, as the
  // threads of one process do.
  exporter::SummarizeOptions options{jobs, request.use_cache, request.critical_path, cores};
  options.next_ticket = [&session] { return session.NextTicket(); };
  std::vector<std::string> problems;
  const std::vector<analysis::cluster::RankSummary> summaries = exporter::SummarizeRanks(
      discovery.ranks, exporter::RanksLargestFirst(discovery.ranks), options, &problems, nullptr);
  for (const std::string& problem : problems) err << prefix << problem << "\n";
  const std::string packed = Pack(summaries);
  std::vector<std::string_view> parts;
  if (!session.Gather(packed, &parts, &error)) {
    if (me == 0) err << "aiprof cluster: " << error << "\n";
    return kExitFailure;
  }
  if (me != 0) return kExitOk;
  if (const int cpus = TakeTheLaunchersCpus(); cpus > 0) {
    out << "aiprof cluster: process 0 merges and writes on " << cpus
        << " CPU(s) (the launcher's; each process parsed on the core mpirun bound it to)\n";
  }
  // MPI is being finalized on the session's thread meanwhile.
  std::vector<analysis::cluster::RankSummary> all;
  for (std::string_view part : parts) {
    if (!Unpack(part, all, &error)) {
      err << "aiprof cluster: a gathered summary is corrupt: " << error << "\n";
      return kExitFailure;
    }
  }
  return exporter::FinishCluster(std::move(all), {request.output_dir, request.outputs}, out, err);
}

}  // namespace aiprof::cli
