// The app the launch tests profile. Every mode emits markers and steps through the real
// runtime (libaiprof.so, preloaded by aiprof and linked here), then ends in a known way.
//   exit <code>          markers, one step, exit(code)
//   segv                 markers, one step, waits for a flush, then dereferences null
//   segv-early <ms>      one step, then dereferences null <ms> after starting (before the
//                        first regular flush)
//   workers <n>          parent forks n workers; everyone marks and steps; parent waits
//   timed <ms>           a marker every millisecond for <ms>, payload = CLOCK_REALTIME ns
//   flood <count>        <count> markers with incompressible payloads (storage limit)
//   sleep <ms> <ready>   one marker, creates file <ready>, then sleeps (signal forwarding)
//   getenv <name>        exits with the number in environment variable <name>
#include <aiprof/aiprof.h>
#include <aiprof/mstx.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>

namespace {

uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void MarkWithPayload(const char* message, uint64_t payload) {
  mstxEventAttributes attributes{};
  attributes.fields = MSTX_ATTR_PAYLOAD;
  attributes.payload_type = MSTX_PAYLOAD_UINT64;
  attributes.payload.u64 = payload;
  mstxMarkExA(message, &attributes, nullptr);
}

void OneStep(const char* range) {
  aiprofStepBegin(1);
  mstxRangePushA(range, nullptr);
  mstxMarkA("inside", nullptr);
  mstxRangePop();
  aiprofStepEnd(1);
}

void SleepMs(long ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launch_test_app exit|segv|workers|timed|flood|sleep [n]\n");
    return 2;
  }
  std::string mode = argv[1];
  long n = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;
  if (mode == "exit") {
    OneStep("work");
    return static_cast<int>(n);
  }
  if (mode == "segv") {
    OneStep("before_crash");
    SleepMs(1500);  // past one flush interval: what was flushed must survive the crash
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;
    return 0;
  }
  if (mode == "segv-early") {
    OneStep("early");
    SleepMs(n);
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;
    return 0;
  }
  if (mode == "workers") {
    for (long i = 0; i < n; ++i) {
      pid_t pid = fork();
      if (pid == 0) {
        OneStep("worker");
        SleepMs(300);  // long enough for the launcher's sampler to see the worker
        std::exit(0);  // not _exit: the runtime writes its last data from atexit
      }
    }
    OneStep("parent");
    int status = 0;
    int failures = 0;
    while (wait(&status) > 0) failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return failures;
  }
  if (mode == "timed") {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(n);
    while (std::chrono::steady_clock::now() < end) {
      MarkWithPayload("tick", RealtimeNs());
      SleepMs(1);
    }
    return 0;
  }
  if (mode == "flood") {
    std::mt19937_64 random(7);
    for (long i = 0; i < n; ++i) MarkWithPayload("flood", random());
    return 0;
  }
  if (mode == "getenv" && argc > 2) {
    const char* value = std::getenv(argv[2]);
    return value ? std::atoi(value) : 99;
  }
  if (mode == "sleep") {
    mstxMarkA("sleeping", nullptr);
    if (argc > 3) std::fclose(std::fopen(argv[3], "w"));
    SleepMs(n);
    return 0;
  }
  std::fprintf(stderr, "launch_test_app: unknown mode '%s'\n", mode.c_str());
  return 2;
}
