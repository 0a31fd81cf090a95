// Helper program for aiprof_runtime_process_tests. Modes:
//   exit N          N marks on two threads, then return from main (window from AIPROF_OPTIONS)
//   wait-signal N   N marks, print "ready", then keep marking until a signal ends the process
//   rss N THREADS   open a window through the API (output = argv[4]) with AIPROF_OPTIONS-free
//                   options, N marks per thread; print baseline/peak RSS (KiB) and attempts
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

namespace {

long StatusKb(const char* field) {
  FILE* status = std::fopen("/proc/self/status", "r");
  char line[256];
  long value = -1;
  size_t length = std::strlen(field);
  while (status != nullptr && std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, field, length) == 0) value = std::atol(line + length + 1);
  }
  if (status != nullptr) std::fclose(status);
  return value;
}

void Marks(long count) {
  for (long i = 0; i < count; ++i) mstxMarkA("child mark", nullptr);
}

int Exit(long count) {
  std::thread other(Marks, count / 2);
  Marks(count - count / 2);
  other.join();
  return 0;
}

// Leaves through _exit, as Python's os._exit in DataLoader workers does: no exit handlers.
int ImmediateExit(long count) {
  Marks(count);
  _exit(5);
}

int WaitSignal(long count) {
  Marks(count);
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) {
    mstxMarkA("after ready", nullptr);
    usleep(1000);
  }
}

int Rss(long per_thread, int threads, const char* output) {
  long baseline = StatusKb("VmRSS:");
  aiprofInit(output);
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  aiprofConfigSetOption(config, "buffer_mb", "16");
  if (aiprofStart(config) != AIPROF_SUCCESS) {
    std::fprintf(stderr, "start failed: %s\n", aiprofLastError());
    return 2;
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(Marks, per_thread);
  for (auto& worker : workers) worker.join();
  long peak = StatusKb("VmHWM:");
  aiprofStop(config);
  aiprofDestroyConfig(config);
  std::printf("baseline_kb %ld peak_kb %ld attempted %ld\n", baseline, peak, per_thread * threads);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  long count = argc > 2 ? std::atol(argv[2]) : 1000;
  if (mode == "exit") return Exit(count);
  if (mode == "wait-signal") return WaitSignal(count);
  if (mode == "underscore-exit") return ImmediateExit(count);
  if (mode == "rss" && argc > 4) return Rss(count, std::atoi(argv[3]), argv[4]);
  std::fprintf(stderr, "usage: runtime_test_child exit N | wait-signal N | rss N THREADS DIR\n");
  return 2;
}
