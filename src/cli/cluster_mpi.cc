#include "cli/cluster_mpi.h"

#include <mpi.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "export/cluster/cluster_job.h"

namespace aiprof::cli {

namespace {

// Gathers every process's bytes to process 0, in process order.
std::vector<std::string> GatherToRoot(const std::string& mine, int me, int size) {
  const long long my_size = static_cast<long long>(mine.size());
  std::vector<long long> sizes(me == 0 ? size : 0);
  MPI_Gather(&my_size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<int> counts, displacements;
  std::string all;
  if (me == 0) {
    long long total = 0;
    for (long long s : sizes) {
      counts.push_back(static_cast<int>(s));
      displacements.push_back(static_cast<int>(total));
      total += s;
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(), counts.data(),
              displacements.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<std::string> parts;
  for (int p = 0; me == 0 && p < size; ++p)
    parts.push_back(
        all.substr(static_cast<size_t>(displacements[p]), static_cast<size_t>(counts[p])));
  return parts;
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

bool Unpack(const std::string& packed, std::vector<analysis::cluster::RankSummary>& out,
            std::string* error) {
  size_t offset = 0;
  auto get = [&](uint64_t* value) {
    if (packed.size() - offset < sizeof *value) return false;
    std::memcpy(value, packed.data() + offset, sizeof *value);
    offset += sizeof *value;
    return true;
  };
  uint64_t count = 0;
  if (!get(&count)) return false;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    if (!get(&size) || size > packed.size() - offset) {
      *error = "truncated summary buffer";
      return false;
    }
    analysis::cluster::RankSummary summary;
    if (!analysis::cluster::DeserializeRankSummary(packed.substr(offset, size), &summary, error))
      return false;
    offset += size;
    out.push_back(std::move(summary));
  }
  return true;
}

}  // namespace

int RunClusterMpi(const ClusterRequest& request, std::ostream& out, std::ostream& err) {
  MPI_Init(nullptr, nullptr);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string prefix =
      "aiprof cluster [MPI process " + std::to_string(me) + "/" + std::to_string(size) + "]: ";

  // Every process lists the same shared directory, so each knows its share without a
  // message; process 0 reports what was found.
  const exporter::RankDiscovery discovery = exporter::DiscoverRanks(request.input_dir);
  if (!discovery.error.empty()) {
    if (me == 0) err << "aiprof cluster: " << discovery.error << "\n";
    MPI_Finalize();
    return kExitUsage;
  }
  if (me == 0) {
    exporter::PrintDiscovery(discovery, out);
    out << "aiprof cluster: " << size << " MPI processes, " << request.jobs
        << " rank(s) in flight in each\n";
  }
  const std::vector<size_t> mine = exporter::RanksOfPart(
      discovery.ranks, static_cast<unsigned>(size), static_cast<unsigned>(me));
  std::vector<std::string> problems;
  const std::vector<analysis::cluster::RankSummary> summaries = exporter::SummarizeRanks(
      discovery.ranks, mine, {request.jobs, request.use_cache}, &problems, nullptr);
  for (const std::string& problem : problems) err << prefix << problem << "\n";
  std::string packed = Pack(summaries);
  if (packed.size() > static_cast<size_t>(INT_MAX)) {
    err << prefix << "summaries of " << summaries.size()
        << " ranks exceed 2 GiB; run with more MPI processes\n";
    packed = Pack({});
  }
  const std::vector<std::string> parts = GatherToRoot(packed, me, size);
  int code = kExitOk;
  if (me == 0) {
    std::vector<analysis::cluster::RankSummary> all;
    std::string error;
    for (const std::string& part : parts) {
      if (!Unpack(part, all, &error)) {
        err << "aiprof cluster: a gathered summary is corrupt: " << error << "\n";
        code = kExitFailure;
      }
    }
    if (code == kExitOk) {
      code =
          exporter::FinishCluster(std::move(all), {request.output_dir, request.outputs}, out, err);
    }
  }
  MPI_Finalize();
  return code;
}

}  // namespace aiprof::cli
