#include "export/cluster/cluster_job.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include "analysis/analysis_set.h"
#include "export/cluster/cluster_files.h"
#include "export/cluster/cluster_report.h"
#include "export/exit_code.h"
#include "model/discovery.h"
#include "model/parser.h"
#include "model/rank_identity.h"

namespace aiprof::exporter {

namespace fs = std::filesystem;
using analysis::cluster::RankSummary;

namespace {

constexpr const char* kCacheName = "cluster_rank_summary.bin";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the cache is valid for: every raw file's path, size and modification time, and the
// aiprof binary that computed it (size and modification time of /proc/self/exe), so a new
// build or upgrade recomputes the summaries instead of reading ones an older analysis made;
// and whether it holds the steps' own critical paths.
std::string CacheKey(const std::vector<std::string>& files, bool critical_path) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  auto mix = [&hash](const void* data, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      hash ^= static_cast<const unsigned char*>(data)[i];
      hash *= 1099511628211ull;
    }
  };
  std::vector<std::string> inputs = files;
  inputs.push_back("/proc/self/exe");
  for (const std::string& file : inputs) {
    struct stat info {};
    stat(file.c_str(), &info);
    const int64_t values[] = {static_cast<int64_t>(info.st_size), info.st_mtim.tv_sec,
                              info.st_mtim.tv_nsec};
    mix(file.data(), file.size());
    mix(values, sizeof values);
  }
  char text[64];
  std::snprintf(text, sizeof text, "aiprof rank summary %016llx%s\n",
                static_cast<unsigned long long>(hash), critical_path ? " critical path" : "");
  return text;
}

fs::path CachePath(const RankInput& input) {
  return fs::path(input.cache_dir) / kCacheName;
}

bool ReadCache(const fs::path& path, const std::string& key, RankSummary* summary) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  const std::string text = ReadText(path);
  if (text.compare(0, key.size(), key) != 0) return false;
  std::string error;
  return analysis::cluster::DeserializeRankSummary(text.substr(key.size()), summary, &error);
}

void WriteCache(const fs::path& path, const std::string& key, const RankSummary& summary) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path partial = path.string() + ".partial";
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  out << key << analysis::cluster::SerializeRankSummary(summary);
  out.close();
  // Read-only shared storage: no cache, nothing else changes.
  if (out) fs::rename(partial, path, ec);
  if (!out || ec) fs::remove(partial, ec);
}

// Parses and analyses one rank; false with `problem` set when it has nothing to analyse.
bool SummarizeRank(const RankInput& input, unsigned parse_threads, const SummarizeOptions& options,
                   RankSummary* summary, std::string* problem, bool* from_cache) {
  const bool use_cache = options.use_cache;
  const std::vector<std::string>& files = input.files;
  if (files.empty()) {
    *problem = "rank " + std::to_string(input.rank) +
               ": no raw data (expected PROF_*/host/data/*.data); skipped";
    return false;
  }
  const std::string key = CacheKey(files, options.critical_path);
  const fs::path cache = CachePath(input);
  if (use_cache && ReadCache(cache, key, summary)) {
    *from_cache = true;
    return true;
  }
  model::Model parsed = model::ParseFiles(files, {parse_threads});
  if (parsed.records == 0) {
    *problem = "rank " + std::to_string(input.rank) + " (" + input.prof_dirs.front() +
               "): no readable records; skipped";
    return false;
  }
  const analysis::AnalysisSet set =
      analysis::RunAnalyses(parsed, {std::nullopt, options.critical_path});
  *summary = analysis::cluster::BuildRankSummary(parsed, set, input.rank, input.prof_dirs);
  if (use_cache) WriteCache(cache, key, *summary);
  return true;
}

}  // namespace

RankDiscovery DiscoverRanks(const std::string& dir) {
  RankDiscovery discovery;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    discovery.error = "'" + dir +
                      "' is not a directory; pass the folder holding the ranks' "
                      "PROF_* directories or Kineto traces (or their rank folders)";
    return discovery;
  }
  // The one discovery of every command: PROF_* directories and Kineto traces below `dir`.
  model::InputDiscovery found = model::DiscoverRuns({dir});
  discovery.notes = std::move(found.notes);
  std::map<int32_t, RankInput> by_rank;
  for (model::RunInput& run : found.runs) {
    if (run.rank < 0) {
      const bool trace = run.kind == model::RunKind::kTrace;
      discovery.skipped.push_back(
          run.path + (trace ? ": the trace names no rank (no distributedInfo); skipped"
                      : fs::exists(fs::path(run.path) / "info.json", ec)
                          ? ": no rank in info.json (not started by torchrun/mpirun/srun, e.g. "
                            "the launcher process); skipped"
                          : ": no info.json, so no rank; skipped"));
      continue;
    }
    RankInput& input = by_rank[run.rank];
    input.rank = run.rank;
    if (input.cache_dir.empty()) input.cache_dir = (fs::path(run.output_dir) / "analysis").string();
    input.prof_dirs.push_back(run.path);
    for (const std::string& file : run.files) {
      input.raw_bytes += fs::file_size(file, ec);
      input.files.push_back(file);
    }
  }
  for (auto& [rank, input] : by_rank) discovery.ranks.push_back(std::move(input));
  if (discovery.ranks.empty()) {
    discovery.error = found.runs.empty()
                          ? found.error
                          : "none of the " + std::to_string(found.runs.size()) +
                                " runs (PROF_* directories, traces) names a rank; profile the "
                                "job's ranks under a launcher that sets RANK (torchrun, mpirun, "
                                "srun), or give traces with distributedInfo";
  }
  return discovery;
}

void PrintDiscovery(const RankDiscovery& discovery, std::ostream& out) {
  uint64_t dirs = 0, bytes = 0;
  for (const RankInput& input : discovery.ranks) {
    dirs += input.prof_dirs.size();
    bytes += input.raw_bytes;
  }
  out << "aiprof cluster: found " << discovery.ranks.size() << " rank(s)";
  if (!discovery.ranks.empty()) {
    out << " (" << discovery.ranks.front().rank << ".." << discovery.ranks.back().rank << ")";
  }
  char size[32];
  std::snprintf(size, sizeof size, "%.1f MB", static_cast<double>(bytes) / 1e6);
  out << " in " << dirs << " runs (PROF_* directories, traces), " << size << " of data; "
      << discovery.skipped.size() << " skipped\n";
  for (const std::string& note : discovery.notes) out << "  " << note << "\n";
  constexpr size_t kListed = 8;
  for (size_t i = 0; i < discovery.skipped.size() && i < kListed; ++i)
    out << "  skipped " << discovery.skipped[i] << "\n";
  if (discovery.skipped.size() > kListed)
    out << "  ... and " << discovery.skipped.size() - kListed << " more skipped the same way\n";
}

std::vector<size_t> RanksLargestFirst(const std::vector<RankInput>& ranks) {
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ranks[a].raw_bytes > ranks[b].raw_bytes; });
  return order;
}

std::vector<RankSummary> SummarizeRanks(const std::vector<RankInput>& ranks,
                                        const std::vector<size_t>& indices,
                                        const SummarizeOptions& options,
                                        std::vector<std::string>* problems,
                                        std::ostream* progress) {
  const unsigned jobs =
      std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(indices.size())));
  // Cores left over when fewer ranks than cores are in flight go to each rank's parse.
  const unsigned cores =
      options.cores > 0 ? options.cores : std::max(1u, std::thread::hardware_concurrency());
  const unsigned parse_threads = std::max(1u, cores / jobs);
  std::vector<RankSummary> summaries(indices.size());
  std::vector<std::string> failures(indices.size());
  std::vector<uint8_t> ok(indices.size(), 0), taken(indices.size(), 0);
  std::atomic<size_t> next{0};
  std::mutex progress_lock, ticket_lock;
  auto take = [&]() -> size_t {
    if (!options.next_ticket) return next++;
    std::lock_guard<std::mutex> lock(ticket_lock);
    return static_cast<size_t>(std::min<uint64_t>(options.next_ticket(), indices.size()));
  };
  auto worker = [&] {
    for (size_t i = take(); i < indices.size(); i = take()) {
      taken[i] = 1;
      const RankInput& input = ranks[indices[i]];
      const auto begin = std::chrono::steady_clock::now();
      bool cached = false;
      ok[i] = SummarizeRank(input, parse_threads, options, &summaries[i], &failures[i], &cached);
      if (!ok[i] || progress == nullptr) continue;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      std::lock_guard<std::mutex> lock(progress_lock);
      char line[160];
      std::snprintf(line, sizeof line,
                    "  rank %d: %llu events, %zu steps, %zu communication ops%s (%.2f s)\n",
                    input.rank, static_cast<unsigned long long>(summaries[i].events),
                    summaries[i].steps.size(), summaries[i].communication.size(),
                    cached ? ", from the cache" : "", seconds);
      *progress << line << std::flush;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  std::vector<RankSummary> result;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (ok[i]) {
      result.push_back(std::move(summaries[i]));
    } else if (taken[i]) {
      problems->push_back(failures[i]);
    }
  }
  return result;
}

int FinishCluster(std::vector<RankSummary> summaries, const ClusterWriteOptions& options,
                  std::ostream& out, std::ostream& err) {
  if (summaries.empty()) {
    err << "aiprof cluster: no rank could be analysed; nothing written\n";
    return kExitUsage;
  }
  const analysis::cluster::ClusterResult result =
      analysis::cluster::MergeRankSummaries(std::move(summaries));
  const fs::path dir = fs::path(options.output_dir) / format::kClusterOutputDir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    err << "aiprof cluster: cannot create '" << dir.string() << "': " << ec.message()
        << "; pass a writable directory with -o\n";
    return kExitFailure;
  }
  std::vector<std::string> written, errors;
  WriteClusterOutputs(result, options.outputs, dir.string(), &written, &errors);
  PrintClusterReport(result, out);
  for (const std::string& path : written) out << "  " << path << "\n";
  for (const std::string& e : errors) err << "aiprof cluster: " << e << "\n";
  return errors.empty() ? kExitOk : kExitFailure;
}

}  // namespace aiprof::exporter
