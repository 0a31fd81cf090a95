// Helper program for aiprof_runtime_process_tests. Modes:
//   exit N          N marks on two threads, then return from main (window from AIPROF_OPTIONS)
//   wait-signal N   N marks, print "ready", then keep marking until a signal ends the process
//   rss N THREADS   open a window through the API (output = argv[4]) with AIPROF_OPTIONS-free
//                   options, N marks per thread; print baseline/peak RSS (KiB) and attempts
//   idle N DIR      open a window through the API (default buffer size), N marks, wait two
//                   flush intervals; print the RSS (KiB) before the window and at its end
//   launch N MODE   fork N children that exec this program as "exit 100" (the launcher/worker
//                   pattern); MODE "record": each child marks once before its exec
//   reexec          exec this program as /proc/self/exe with "exit 10"
#include <sys/resource.h>
#include <sys/wait.h>
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

int Idle(long count, const char* output) {
  long baseline = StatusKb("VmRSS:");
  aiprofInit(output);
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  aiprofConfigSetOption(config, "flush_interval_ms", "50");
  if (aiprofStart(config) != AIPROF_SUCCESS) {
    std::fprintf(stderr, "start failed: %s\n", aiprofLastError());
    return 2;
  }
  Marks(count);
  usleep(100 * 1000);  // the writer thread runs its flushes meanwhile
  long windowed = StatusKb("VmRSS:");
  aiprofStop(config);
  aiprofDestroyConfig(config);
  std::printf("baseline_kb %ld window_kb %ld\n", baseline, windowed);
  return 0;
}

int Launch(const char* self, long children, bool record_before_exec) {
  for (long i = 0; i < children; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      if (record_before_exec) mstxMarkA("before exec", nullptr);
      execl(self, self, "exit", "100", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  int failures = 0;
  for (long i = 0; i < children; ++i) {
    int status = 0;
    if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  return failures;
}

int Reexec() {
  execl("/proc/self/exe", "/proc/self/exe", "exit", "10", static_cast<char*>(nullptr));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  long count = argc > 2 ? std::atol(argv[2]) : 1000;
  if (mode == "exit") return Exit(count);
  if (mode == "wait-signal") return WaitSignal(count);
  if (mode == "underscore-exit") return ImmediateExit(count);
  if (mode == "rss" && argc > 4) return Rss(count, std::atoi(argv[3]), argv[4]);
  if (mode == "idle" && argc > 3) return Idle(count, argv[3]);
  if (mode == "launch" && argc > 3)
    return Launch(argv[0], count, std::strcmp(argv[3], "record") == 0);
  if (mode == "reexec") return Reexec();
  std::fprintf(
      stderr,
      "usage: runtime_test_child exit N | wait-signal N | rss N THREADS DIR | idle N DIR | "
      "launch N record|quiet | reexec\n");
  return 2;
}
