// The CUDA source's cost on CUPTI's buffer thread: one buffer of kernel activity, packed
// as CUPTI packs it (CUpti_ActivityKernel10, 8-byte aligned), converted by
// CudaCollector::BufferCompleted into records of the real runtime (libaiprof.so,
// collecting). Reading the records goes through the CUPTI test double's
// cuptiActivityGetNextRecord (no GPU here); everything else is the production path.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "aiprof/aiprof.h"
#include "aiprof/plugin.h"
#include "cuda/cupti_test_double.h"
#include "cuda/recorded_session.h"
#include "sources/cuda/cuda_collector.h"

namespace aiprof::cuda {
namespace {

constexpr size_t kRecordsPerBuffer = 16384;

std::vector<uint8_t> KernelBuffer(size_t* valid) {
  const size_t stride = (sizeof(CUpti_ActivityKernel10) + 7) / 8 * 8;
  std::vector<uint8_t> buffer((kRecordsPerBuffer + 1) * stride + 8);
  CUpti_ActivityDevice5 device = testing::H100Device();
  std::memcpy(buffer.data(), &device, sizeof(device));
  size_t offset = (sizeof(device) + 7) / 8 * 8;
  for (size_t i = 0; i < kRecordsPerBuffer; ++i) {
    const uint64_t start = 1'000'000 + i * 10'000;
    CUpti_ActivityKernel10 kernel = testing::MakeKernel("_Z5scalePffi", testing::kSessionStreamA,
                                                        static_cast<uint32_t>(100 + i), start,
                                                        start + 8'000, 4096, 256, 32, 1024);
    std::memcpy(buffer.data() + offset, &kernel, sizeof(kernel));
    offset += stride;
  }
  *valid = offset;
  return buffer;
}

void BM_ConvertKernelBuffer(benchmark::State& state) {
  const std::string output =
      (std::filesystem::temp_directory_path() / ("aiprof_bench_cuda_" + std::to_string(getpid())))
          .string();
  aiprofInit(output.c_str());
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  aiprofConfigSetOption(config, "buffer_mb", "512");
  aiprofConfigSetOption(config, "flush_interval_ms", "100");
  aiprofStart(config);

  testing::CuptiTestDouble cupti;
  const PluginHost host{aiprof_now, aiprof_intern, aiprof_emit, aiprof_emit_for_thread};
  CudaCollector collector(cupti.api(), host, {});
  std::string error;
  collector.Attach(&error);
  size_t valid = 0;
  std::vector<uint8_t> buffer = KernelBuffer(&valid);
  for (auto _ : state) collector.BufferCompleted(buffer.data(), valid);
  const CollectorStats stats = collector.stats();
  state.SetItemsProcessed(state.iterations() * (kRecordsPerBuffer + 1));
  state.counters["runtime_refused"] = static_cast<double>(stats.conversion.emit_refused);
  state.counters["converted"] = static_cast<double>(stats.conversion.converted);

  aiprofStop(config);
  aiprofDestroyConfig(config);
  aiprofFinalize();
  std::filesystem::remove_all(output);
}
// 4 buffers (65k records, 6 MB) fit the blocks the runtime has pre-faulted at start, so
// every record is stored: the figure is the conversion and store cost, not the drop path.
BENCHMARK(BM_ConvertKernelBuffer)->Unit(benchmark::kMillisecond)->Iterations(4);

}  // namespace
}  // namespace aiprof::cuda

BENCHMARK_MAIN();
