// Cost of the record path (docs/PERFORMANCE.md, "Runtime record path"): a push+pop pair
// and a mark, with a registered string and with a plain string, with collection on and
// off, on 1 and 2 threads; the rdtsc floor; and the resident memory the first window adds
// (the buffer pool's initial part; it grows on demand, see bench_runtime_memory); and the
// interposed close() against the bare system call.
//
// Enabled runs write to a window in /dev/shm (or $TMPDIR) with a buffer large enough that
// nothing is dropped during the short runs; the drop total is printed at the end so a
// figure measured on the (cheaper) drop path cannot pass unnoticed.
#include <benchmark/benchmark.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

namespace {

aiprofConfig* g_config = nullptr;
std::string g_output;
uint64_t g_drops = 0;
mstxDomainHandle_t g_domain = nullptr;
mstxStringHandle_t g_name = nullptr;

long RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

uint64_t DropsOfLastWindow() {
  std::ifstream info(std::string(aiprofCurrentDir()) + "/info.json");
  std::string text((std::istreambuf_iterator<char>(info)), std::istreambuf_iterator<char>());
  size_t at = text.find("\"total\":");
  return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + 8, nullptr, 10);
}

void StartWindow(const benchmark::State&) {
  aiprofStart(g_config);
}
void StopWindow(const benchmark::State&) {
  aiprofStop(g_config);
  g_drops += DropsOfLastWindow();
  // Each window holds GBs of records in /dev/shm: remove it before the next.
  std::string remove = std::string("rm -rf '") + aiprofCurrentDir() + "'";
  if (std::system(remove.c_str()) != 0) std::fprintf(stderr, "cannot remove the window\n");
}

void BM_RdtscPairFloor(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(__rdtsc());
    benchmark::DoNotOptimize(__rdtsc());
  }
}

void BM_PushPopRegistered(benchmark::State& state) {
  for (auto _ : state) {
    mstxDomainRangePushR(g_domain, g_name, nullptr);
    mstxDomainRangePop(g_domain);
  }
}

void BM_PushPopString(benchmark::State& state) {
  for (auto _ : state) {
    mstxRangePushA("bench range", nullptr);
    mstxRangePop();
  }
}

void BM_StartEndString(benchmark::State& state) {
  for (auto _ : state) mstxRangeEnd(mstxRangeStartA("bench range", nullptr));
}

void BM_MarkRegistered(benchmark::State& state) {
  for (auto _ : state) mstxDomainMarkR(g_domain, g_name, nullptr);
}

void BM_MarkString(benchmark::State& state) {
  for (auto _ : state) mstxMarkA("bench mark", nullptr);
}

// The program's close(), which the runtime interposes (runtime/fd_hooks.cc: it records the
// close for the descriptors the runtime adopts), against the bare system call, on a number
// that is not open (the cost of the hook, not of closing a file).
void BM_CloseInterposed(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(close(-1));
}
void BM_CloseSystemCall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(syscall(SYS_close, -1));
}

#define ENABLED(fn) \
  BENCHMARK(fn)->Name(#fn "/enabled")->Setup(StartWindow)->Teardown(StopWindow)->MinTime(0.2)
#define DISABLED(fn) BENCHMARK(fn)->Name(#fn "/disabled")->MinTime(0.2)

BENCHMARK(BM_RdtscPairFloor)->MinTime(0.2);
ENABLED(BM_PushPopRegistered)->Threads(1)->Threads(2);
ENABLED(BM_PushPopString)->Threads(1)->Threads(2);
ENABLED(BM_StartEndString)->Threads(1)->Threads(2);
ENABLED(BM_MarkRegistered)->Threads(1)->Threads(2);
ENABLED(BM_MarkString)->Threads(1)->Threads(2);
DISABLED(BM_PushPopRegistered)->Threads(1)->Threads(2);
DISABLED(BM_PushPopString)->Threads(1)->Threads(2);
DISABLED(BM_MarkString)->Threads(1)->Threads(2);
BENCHMARK(BM_CloseInterposed)->MinTime(0.2)->Threads(1)->Threads(2);
BENCHMARK(BM_CloseSystemCall)->MinTime(0.2)->Threads(1)->Threads(2);

}  // namespace

int main(int argc, char** argv) {
  const char* tmp = std::getenv("TMPDIR");
  struct stat shm;
  std::string base = stat("/dev/shm", &shm) == 0 ? "/dev/shm" : (tmp != nullptr ? tmp : "/tmp");
  g_output = base + "/aiprof_bench_" + std::to_string(getpid());
  aiprofInit(g_output.c_str());
  g_config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  // ~45 M records fit: the longest run below stays under this, so nothing drops.
  aiprofConfigSetOption(g_config, "buffer_mb", "1024");
  aiprofConfigSetOption(g_config, "compress", "false");
  g_domain = mstxDomainCreateA("bench");
  g_name = mstxDomainRegisterStringA(g_domain, "bench range");
  long rss_before = RssKb();
  aiprofStart(g_config);
  long rss_after = RssKb();
  std::printf("resident memory added by the first window (buffer_mb 1024): %.1f MiB\n",
              static_cast<double>(rss_after - rss_before) / 1024.0);
  // The pool grows from the writer thread while a process records; the measured runs below
  // start once it has grown to the cap, so none of them pays for (or drops during) growth.
  for (int round = 0; round < 100000 && RssKb() - rss_before < 1000 * 1024; ++round) {
    for (int i = 0; i < 100000; ++i) mstxMarkA("warm up", nullptr);
  }
  aiprofStop(g_config);
  std::printf("resident after warming up to the cap: %.1f MiB (warm-up drops, not counted: %llu)\n",
              static_cast<double>(RssKb() - rss_before) / 1024.0,
              static_cast<unsigned long long>(DropsOfLastWindow()));
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aiprofDestroyConfig(g_config);
  std::printf("records dropped during enabled runs: %llu\n",
              static_cast<unsigned long long>(g_drops));
  std::string remove = "rm -rf '" + g_output + "'";
  return std::system(remove.c_str()) == 0 && g_drops == 0 ? 0 : 1;
}
