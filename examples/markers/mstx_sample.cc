// Sample program annotated with the mstx API and linked with libaiprof.so. Run it with
// AIPROF_OPTIONS='{"output":"out"}' (or under the aiprof launcher) to get a PROF_* dir.
// Usage: mstx_sample [iterations] [threads]
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

namespace {

volatile double g_sink = 0;

void Work(int amount) {
  double value = 0;
  for (int i = 0; i < amount; ++i) value += i * 0.5;
  g_sink = value;
}

void Worker(int iterations, mstxDomainHandle_t domain, mstxStringHandle_t compute) {
  for (int i = 0; i < iterations; ++i) {
    mstxRangePushA("iteration", nullptr);
    mstxDomainRangePushR(domain, compute, nullptr);
    Work(2000);
    mstxDomainRangePop(domain);
    mstxMarkA("checkpoint", nullptr);
    mstxRangePop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 100;
  int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  mstxDomainHandle_t domain = mstxDomainCreateA("sample");
  mstxStringHandle_t compute = mstxDomainRegisterStringA(domain, "compute");
  mstxRangeId whole = mstxRangeStartA("whole run", nullptr);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    aiprofStepBegin(static_cast<uint64_t>(t));
    workers.emplace_back(Worker, iterations, domain, compute);
    aiprofStepEnd(static_cast<uint64_t>(t));
  }
  for (auto& worker : workers) worker.join();
  mstxRangeEnd(whole);
  std::printf("mstx_sample: %d threads x %d iterations\n", threads, iterations);
  return 0;
}
