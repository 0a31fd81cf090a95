// Sample program annotated with the NVTX v3 headers only (not linked with aiprof). Run it
// with LD_PRELOAD=libaiprof.so and AIPROF_OPTIONS='{"output":"out"}'; the runtime
// receives every range through InitializeInjectionNvtx2.
// Usage: nvtx_sample [iterations] [threads]
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

volatile double g_sink = 0;

void Work(int amount) {
  double value = 0;
  for (int i = 0; i < amount; ++i) value += i * 0.5;
  g_sink = value;
}

void Worker(int iterations, nvtxDomainHandle_t domain, nvtxStringHandle_t step_name) {
  nvtxNameOsThreadA(0, "nvtx worker");
  for (int i = 0; i < iterations; ++i) {
    nvtxRangePushA("outer");
    nvtxEventAttributes_t attributes = {};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.colorType = NVTX_COLOR_ARGB;
    attributes.color = 0xFF00FF00u;
    attributes.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attributes.payload.llValue = i;
    attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attributes.message.registered = step_name;
    nvtxDomainRangePushEx(domain, &attributes);
    Work(1000);
    nvtxDomainRangePop(domain);
    nvtxMarkA("tick");
    nvtxRangePop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
  int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  nvtxDomainHandle_t domain = nvtxDomainCreateA("nvtx_sample");
  nvtxStringHandle_t step_name = nvtxDomainRegisterStringA(domain, "step");
  nvtxRangeId_t whole = nvtxRangeStartA("whole run");
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) workers.emplace_back(Worker, iterations, domain, step_name);
  for (auto& worker : workers) worker.join();
  nvtxRangeEnd(whole);
  std::printf("nvtx_sample: %d threads x %d iterations\n", threads, iterations);
  return 0;
}
