// A small CUDA program with known activity, for checking the CUDA source on a GPU
// (scripts/verify-cuda.sh): per iteration, an HtoD copy (pageable), three kernels on two
// streams (stream B's waits for stream A's through a CUDA event: cudaEventRecord and
// cudaStreamWaitEvent), a memset, a two-kernel CUDA graph launch, a DtoH copy (pinned), all inside
// NVTX ranges, and one mstx range given stream A (device time on that stream when run
// under aiprof); then a timing pass of 3 x 3 kernels, each alone between two CUDA events.
// It writes what it launched, with the CUDA-event durations, as JSON to the path given by
// --report, for comparison with aiprof's data (scripts/verify-cuda.sh).
//
//   cuda_workload [--iterations N] [--report launched.json]
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kElements = 1 << 20;  // 4 MiB of floats per buffer
constexpr size_t kBytes = kElements * sizeof(float);

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t status = (call);                                                        \
    if (status != cudaSuccess) {                                                        \
      std::fprintf(stderr, "cuda_workload: %s failed: %s\n", #call,                    \
                   cudaGetErrorString(status));                                         \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

// scale and add repeat a dependent chain of arithmetic so they run for about a millisecond
// (an H200 needs 40,000 rounds; 400 took 18 us): long enough that a 5% comparison with CUDA
// events is not dominated by the events' own overhead (10-20 us per pair, measured there).
__global__ void scale(float* data, float factor, int repeat) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kElements) return;
  float value = data[i];
  for (int r = 0; r < repeat; ++r) value = value * factor + 1e-7f;
  data[i] = value;
}

__global__ void add(const float* a, const float* b, float* out, int repeat) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kElements) return;
  float value = 0;
  for (int r = 0; r < repeat; ++r) value += a[i] * 0.5f + b[i] * 0.25f;
  out[i] = value;
}

__global__ void reduce(const float* in, float* partial) {
  extern __shared__ float tile[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < kElements ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = tile[0];
}

struct KernelTiming {
  const char* name;
  unsigned long long stream;
  cudaEvent_t start, stop;
};

}  // namespace

int main(int argc, char** argv) {
  int iterations = 5;
  const char* report_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--report") == 0 && i + 1 < argc) {
      report_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--iterations N] [--report launched.json]\n", argv[0]);
      return 2;
    }
  }

  cudaStream_t stream_a, stream_b;
  CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
  cudaEvent_t scaled;  // stream A's x is ready for stream B (cudaStreamWaitEvent)
  CHECK(cudaEventCreateWithFlags(&scaled, cudaEventDisableTiming));
  unsigned long long id_a = 0, id_b = 0;
  CHECK(cudaStreamGetId(stream_a, &id_a));
  CHECK(cudaStreamGetId(stream_b, &id_b));

  float *x, *y, *z, *partial, *pinned;
  CHECK(cudaMalloc(&x, kBytes));
  CHECK(cudaMalloc(&y, kBytes));
  CHECK(cudaMalloc(&z, kBytes));
  CHECK(cudaMalloc(&partial, kBytes / 256));
  CHECK(cudaMallocHost(&pinned, kBytes));
  std::vector<float> pageable(kElements, 1.0f);

  const int threads = 256, blocks = (kElements + threads - 1) / threads;
  const int repeat = 40000;

  // The graph: scale then add, captured on stream B.
  cudaGraph_t graph;
  cudaGraphExec_t graph_exec;
  CHECK(cudaStreamBeginCapture(stream_b, cudaStreamCaptureModeGlobal));
  scale<<<blocks, threads, 0, stream_b>>>(y, 0.999f, repeat);
  add<<<blocks, threads, 0, stream_b>>>(x, y, z, repeat);
  CHECK(cudaStreamEndCapture(stream_b, &graph));
  CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));

  // aiprof's mstx API, looked up at run time so the program runs without aiprof too. The
  // range is given stream A: its device time must enclose the iteration's stream-A work.
  using MstxRangeStart = uint64_t (*)(const char*, void*);
  using MstxRangeEnd = void (*)(uint64_t);
  const auto mstx_start = reinterpret_cast<MstxRangeStart>(dlsym(RTLD_DEFAULT, "mstxRangeStartA"));
  const auto mstx_end = reinterpret_cast<MstxRangeEnd>(dlsym(RTLD_DEFAULT, "mstxRangeEnd"));

  for (int iteration = 0; iteration < iterations; ++iteration) {
    const uint64_t stream_range = mstx_start ? mstx_start("iteration on stream A", stream_a) : 0;
    nvtxRangePushA("iteration");
    nvtxRangePushA("h2d");
    CHECK(cudaMemcpyAsync(x, pageable.data(), kBytes, cudaMemcpyHostToDevice, stream_a));
    CHECK(cudaMemcpyAsync(y, pageable.data(), kBytes, cudaMemcpyHostToDevice, stream_b));
    nvtxRangePop();
    nvtxRangePushA("compute");
    scale<<<blocks, threads, 0, stream_a>>>(x, 1.001f, repeat);
    // add reads the x scale writes: stream B waits for stream A's event (a cross-stream
    // edge of the critical path).
    CHECK(cudaEventRecord(scaled, stream_a));
    CHECK(cudaStreamWaitEvent(stream_b, scaled, 0));
    add<<<blocks, threads, 0, stream_b>>>(x, y, z, repeat);
    reduce<<<blocks, threads, threads * sizeof(float), stream_a>>>(x, partial);
    CHECK(cudaMemsetAsync(z, 0, kBytes, stream_b));
    CHECK(cudaGraphLaunch(graph_exec, stream_b));
    nvtxRangePop();
    nvtxRangePushA("d2h");
    CHECK(cudaStreamSynchronize(stream_b));
    CHECK(cudaMemcpyAsync(pinned, z, kBytes, cudaMemcpyDeviceToHost, stream_a));
    if (mstx_end != nullptr) mstx_end(stream_range);  // before the wait: ends in stream order
    CHECK(cudaStreamSynchronize(stream_a));
    nvtxRangePop();
    nvtxRangePop();
  }
  CHECK(cudaDeviceSynchronize());

  // Timing pass: each kernel alone on an idle device between two CUDA events, so the event
  // interval is the kernel's execution (plus the events' own resolution). These are the
  // last kernels of the run, in this order.
  std::vector<KernelTiming> timings;
  nvtxRangePushA("timing");
  for (int round = 0; round < 3; ++round) {
    auto timed = [&](const char* name, cudaStream_t stream, unsigned long long id, auto launch) {
      KernelTiming timing{name, id, nullptr, nullptr};
      CHECK(cudaEventCreate(&timing.start));
      CHECK(cudaEventCreate(&timing.stop));
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(timing.start, stream));
      launch();
      CHECK(cudaEventRecord(timing.stop, stream));
      CHECK(cudaDeviceSynchronize());
      timings.push_back(timing);
    };
    timed("scale", stream_a, id_a,
          [&] { scale<<<blocks, threads, 0, stream_a>>>(x, 1.001f, repeat); });
    timed("add", stream_b, id_b,
          [&] { add<<<blocks, threads, 0, stream_b>>>(x, y, z, repeat); });
    timed("reduce", stream_a, id_a, [&] {
      reduce<<<blocks, threads, threads * sizeof(float), stream_a>>>(x, partial);
    });
  }
  nvtxRangePop();

  if (report_path != nullptr) {
    FILE* report = std::fopen(report_path, "w");
    if (report == nullptr) {
      std::perror(report_path);
      return 1;
    }
    std::fprintf(report,
                 "{\"iterations\": %d, \"streams\": [%llu, %llu], \"copy_bytes\": %zu,\n"
                 " \"per_iteration\": {\"kernels\": 5, \"graph_kernels\": 2, \"htod\": 2, "
                 "\"dtoh\": 1, \"memsets\": 1, \"stream_a_kernels\": 2, \"event_waits\": 1},\n"
                 " \"stream_range\": {\"name\": \"iteration on stream A\", \"stream\": %llu, "
                 "\"marked\": %s},\n \"timed_kernels\": [\n",
                 iterations, id_a, id_b, kBytes, id_a, mstx_start != nullptr ? "true" : "false");
    for (size_t i = 0; i < timings.size(); ++i) {
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, timings[i].start, timings[i].stop));
      std::fprintf(report, "  {\"name\": \"%s\", \"stream\": %llu, \"event_ms\": %.6f}%s\n",
                   timings[i].name, timings[i].stream, ms, i + 1 < timings.size() ? "," : "");
    }
    std::fprintf(report, "]}\n");
    std::fclose(report);
  }
  std::printf("cuda_workload: %d iterations on streams %llu and %llu\n", iterations, id_a, id_b);
  return 0;
}
