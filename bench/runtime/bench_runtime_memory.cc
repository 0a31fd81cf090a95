// Resident memory and drops of the growing buffer pool (docs/PERFORMANCE.md, "Runtime
// record path", memory): each scenario runs in a fresh forked process (the pool is created
// once per process, at its first window) and prints one table row.
//   idle          a window open for 200 ms with 10 marks (buffer_mb 64)
//   flood, cold   2 threads x 1 M marks (32 MB, below the 64 MiB cap) as fast as they go,
//                 in the process's first window: the pool grows while they record
//   flood, busy   the same in a second window, after a first one made the process busy
//   flood > cap   2 threads x 10 M marks (320 MB) into a 16 MiB cap: drops are expected,
//                 resident memory must stay at the cap plus a constant
// Columns: attempted marks, written, dropped (from info.json, so every drop is counted),
// resident memory added (peak VmHWM minus VmRSS before the first window), wall time.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

namespace {

long StatusKb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  size_t length = std::strlen(field);
  while (std::getline(status, line)) {
    if (line.compare(0, length, field) == 0) return std::atol(line.c_str() + length);
  }
  return -1;
}

uint64_t DropsOfLastWindow() {
  std::ifstream info(std::string(aiprofCurrentDir()) + "/info.json");
  std::string text((std::istreambuf_iterator<char>(info)), std::istreambuf_iterator<char>());
  size_t at = text.find("\"total\":");
  return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + 8, nullptr, 10);
}

void Marks(long count) {
  for (long i = 0; i < count; ++i) mstxMarkA("flood", nullptr);
}

struct WindowResult {
  long attempted = 0;
  uint64_t dropped = 0;
  double wall_ms = 0;
};

WindowResult FloodWindow(const char* buffer_mb, int threads, long per_thread, long idle_ms) {
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  aiprofConfigSetOption(config, "buffer_mb", buffer_mb);
  auto start = std::chrono::steady_clock::now();
  if (aiprofStart(config) != AIPROF_SUCCESS) {
    std::fprintf(stderr, "start failed: %s\n", aiprofLastError());
    std::exit(2);
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(Marks, per_thread);
  for (auto& worker : workers) worker.join();
  if (idle_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
  aiprofStop(config);
  auto end = std::chrono::steady_clock::now();
  aiprofDestroyConfig(config);
  WindowResult result;
  result.attempted = threads * per_thread;
  result.dropped = DropsOfLastWindow();
  result.wall_ms = std::chrono::duration<double, std::milli>(end - start).count();
  return result;
}

void Row(const char* name, long baseline_kb, const WindowResult& result) {
  double added_mib = static_cast<double>(StatusKb("VmHWM:") - baseline_kb) / 1024.0;
  std::printf("| %s | %ld | %llu | %llu | %.1f MiB | %.0f ms |\n", name, result.attempted,
              static_cast<unsigned long long>(result.attempted - result.dropped),
              static_cast<unsigned long long>(result.dropped), added_mib, result.wall_ms);
  std::fflush(stdout);
}

void RunScenario(const std::string& scenario, const std::string& output) {
  aiprofInit(output.c_str());
  long baseline = StatusKb("VmRSS:");
  if (scenario == "idle") {
    Row("idle: 10 marks, window open 200 ms (buffer_mb 64)", baseline,
        FloodWindow("64", 1, 10, 200));
  } else if (scenario == "cold") {
    Row("flood below the cap, first window (2 x 1 M marks, buffer_mb 64)", baseline,
        FloodWindow("64", 2, 1000000, 0));
  } else if (scenario == "busy") {
    FloodWindow("64", 2, 1000000, 0);
    Row("flood below the cap, second window (2 x 1 M marks, buffer_mb 64)", baseline,
        FloodWindow("64", 2, 1000000, 0));
  } else {
    Row("flood above the cap (2 x 10 M marks, buffer_mb 16)", baseline,
        FloodWindow("16", 2, 10000000, 0));
  }
}

}  // namespace

int main() {
  const char* tmp = std::getenv("TMPDIR");
  struct stat shm;
  std::string base = stat("/dev/shm", &shm) == 0 ? "/dev/shm" : (tmp != nullptr ? tmp : "/tmp");
  std::string output = base + "/aiprof_bench_memory_" + std::to_string(getpid());
  std::printf("| scenario | attempted | written | dropped | resident added (peak) | wall |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  int failures = 0;
  for (const char* scenario : {"idle", "cold", "busy", "over"}) {
    pid_t child = fork();
    if (child == 0) {
      RunScenario(scenario, output + "/" + scenario);
      std::exit(0);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++failures;
    }
  }
  std::string remove = "rm -rf '" + output + "'";
  return std::system(remove.c_str()) == 0 && failures == 0 ? 0 : 1;
}
