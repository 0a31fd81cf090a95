#include "cli/cluster_mpi.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cluster_mpi_plugin.h"
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

}  // namespace

int MpiProcessesFromEnvironment() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  }
  return 1;
}

int RunClusterMpi(const ClusterRequest& request, std::ostream& out, std::ostream& err) {
  std::string error;
  const AiprofClusterMpiApi* mpi = LoadPlugin(&error);
  if (mpi == nullptr) {
    err << "aiprof cluster: started by an MPI launcher as one of " << MpiProcessesFromEnvironment()
        << " processes, but " << error
        << "; or run `aiprof cluster` once without mpirun (it parses --jobs ranks at once in "
           "threads)\n";
    return kExitUsage;
  }
  int me = 0, size = 1, on_host = 1;
  if (mpi->init(&me, &size, &on_host) != 0) {
    err << "aiprof cluster: MPI_Init failed; check the launcher's output above\n";
    return kExitFailure;
  }
  const std::string prefix =
      "aiprof cluster [MPI process " + std::to_string(me) + "/" + std::to_string(size) + "]: ";
  // The processes on one machine share its cores: each takes its part of them.
  const unsigned cores =
      std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(on_host));
  const unsigned jobs = request.jobs > 0 ? request.jobs : cores;

  // Every process lists the same shared directory, so each knows its share without a
  // message; process 0 reports what was found.
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(request.input_dir);
  if (!discovery.error.empty()) {
    if (me == 0) err << "aiprof cluster: " << discovery.error << "\n";
    mpi->finalize();
    return kExitUsage;
  }
  if (me == 0) {
    exporter::PrintDiscovery(discovery, out);
    out << "aiprof cluster: " << size << " MPI processes (" << on_host << " on this host), " << jobs
        << " rank(s) in flight in each\n"
        << std::flush;
  }
  // The ranks are a work queue shared by the processes (largest first): a process that is
  // faster, or less loaded by other work on its machine, takes more of them, as the
  // threads of one process do.
  exporter::SummarizeOptions options{jobs, request.use_cache, cores};
  options.next_ticket = [mpi] { return mpi->next_ticket(); };
  std::vector<std::string> problems;
  const std::vector<analysis::cluster::RankSummary> summaries = exporter::SummarizeRanks(
      discovery.ranks, exporter::RanksLargestFirst(discovery.ranks), options, &problems, nullptr);
  for (const std::string& problem : problems) err << prefix << problem << "\n";
  const std::string packed = Pack(summaries);
  // Processes that finish their share early wait here asleep instead of spinning in the
  // gather while the others still parse.
  mpi->wait_for_all();
  std::vector<uint64_t> sizes(static_cast<size_t>(size));
  char* gathered = nullptr;
  if (mpi->gather(packed.data(), packed.size(), &gathered, sizes.data()) != 0) {
    if (me == 0)
      err << "aiprof cluster: the summaries exceed 2 GiB together (MPI's message limit); run "
             "once per subset of the ranks or without mpirun\n";
    mpi->finalize();
    return kExitFailure;
  }
  int code = kExitOk;
  if (me == 0) {
    std::vector<analysis::cluster::RankSummary> all;
    size_t offset = 0;
    for (uint64_t part : sizes) {
      if (!Unpack(std::string_view(gathered + offset, part), all, &error)) {
        err << "aiprof cluster: a gathered summary is corrupt: " << error << "\n";
        code = kExitFailure;
      }
      offset += part;
    }
    mpi->release(gathered);
    if (code == kExitOk) {
      code =
          exporter::FinishCluster(std::move(all), {request.output_dir, request.outputs}, out, err);
    }
  }
  // The others sleep while process 0 merges and writes (MPI_Finalize alone would spin).
  mpi->wait_for_all();
  mpi->finalize();
  return code;
}

}  // namespace aiprof::cli
