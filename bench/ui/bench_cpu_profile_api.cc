// /api/cpu_profile's work on a recorded run (the server's UiApi, without HTTP and gzip): the
// first request (symbolisation, then every thread's on- and off-CPU graphs), then the graphs
// of single threads (the thread selector: built per request), each with its answer's size.
// Make the run with the project's own tools, e.g. examples/train sampled at 10 kHz:
//   aiprof --output=/tmp/big --sys-cpu-profiling=on --sys-cpu-freq=10000 <train> --loaders=4
//   bench_cpu_profile_api /tmp/big [--runs=N] [--threads=N]
// The run is read as `aiprof ui` reads it: every PROF_* directory under the path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/parser.h"
#include "server/ui_api.h"

namespace {

uint64_t Flag(int argc, char** argv, const char* name, uint64_t fallback) {
  const size_t length = std::strlen(name);
  for (int i = 2; i < argc; ++i) {
    if (std::strncmp(argv[i], name, length) == 0 && argv[i][length] == '=') {
      return std::strtoull(argv[i] + length + 1, nullptr, 10);
    }
  }
  return fallback;
}

template <typename Work>
double Milliseconds(Work&& work) {
  const auto begin = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
      .count();
}

// Median, min and max of `runs` timings of `request`, and its answer's size.
template <typename Request>
void Report(const char* what, uint64_t runs, Request&& request) {
  std::vector<double> ms;
  size_t bytes = 0;
  for (uint64_t r = 0; r < runs; ++r) {
    ms.push_back(Milliseconds([&] { bytes = request().size(); }));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%-44s %9zu bytes  median %8.2f ms of %llu (min %.2f, max %.2f)\n", what, bytes,
              ms[ms.size() / 2], static_cast<unsigned long long>(runs), ms.front(), ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: bench_cpu_profile_api <run directory> [--runs=N] [--threads=N]\n");
    return 2;
  }
  std::string error;
  const std::vector<std::string> prof_dirs = aiprof::model::FindProfDirs(argv[1], &error);
  if (prof_dirs.empty()) {
    std::fprintf(stderr, "bench_cpu_profile_api: %s\n", error.c_str());
    return 1;
  }
  std::vector<std::string> files;
  for (const std::string& dir : prof_dirs) {
    const std::vector<std::string> raw = aiprof::model::ListRawFiles(dir);
    files.insert(files.end(), raw.begin(), raw.end());
  }
  const uint64_t runs = std::max<uint64_t>(1, Flag(argc, argv, "--runs", 7));
  const uint64_t max_threads = Flag(argc, argv, "--threads", 3);
  aiprof::model::Model model;
  const double parse_ms = Milliseconds([&] { model = aiprof::model::ParseFiles(files); });
  std::printf(
      "model of %zu PROF_* directories: %zu CPU samples, %zu thread states, %zu stacks, "
      "parsed in %.0f ms\n",
      prof_dirs.size(), model.cpu.samples.size(), model.cpu.thread_states.size(),
      model.cpu.stacks.size(), parse_ms);
  const aiprof::server::UiApi api(std::move(model), prof_dirs);
  const double first_ms = Milliseconds([&] { api.cpu_profile().FlameGraph(false); });
  std::printf("first request (symbolise, both graphs of every thread): %.0f ms\n", first_ms);
  Report("every thread, on-CPU (kept)", runs, [&] { return api.cpu_profile().FlameGraph(false); });
  Report("every thread, off-CPU (kept)", runs, [&] { return api.cpu_profile().FlameGraph(true); });
  Report("/api/cpu_threads (kept)", runs, [&] { return api.cpu_profile().Threads(); });
  const nlohmann::json threads = nlohmann::json::parse(api.cpu_profile().Threads())["threads"];
  for (size_t i = 0; i < threads.size() && i < max_threads; ++i) {
    const auto row = threads[i]["thread"].get<uint32_t>();
    const std::string name = threads[i]["name"].get<std::string>() + " (" +
                             std::to_string(threads[i]["on_samples"].get<uint64_t>()) + " samples)";
    for (bool off_cpu : {false, true}) {
      const std::string what = "thread " + name + (off_cpu ? ", off-CPU" : ", on-CPU");
      Report(what.c_str(), runs, [&] {
        return api.cpu_profile().FlameGraph(off_cpu, {{row}, {}});
      });
    }
  }
  return 0;
}
