// Cost of the critical path (analysis::ComputeCriticalPath: the run index, each step's
// dependency graph, its longest path, slack, the per-rank walks and the four standard what-if
// projections) on the CUDA-shaped model of bench_analysis, with what the graph reads on top:
// an ac2g flow from every launch to its kernel and a cudaDeviceSynchronize closing each step.
// Per step 1000 launches on the host thread, their kernels on two streams (an NCCL all-reduce
// every 50 kernels), ProfilerStep ranges. Events = slices. The other analyses run first,
// untimed (the critical path reads them). Memory: every allocation is counted (operator new
// below): the figure is the critical path's own peak heap on top of the model and the other
// analyses, against the model's heap.
//
//   bench_critical_path [--events=N] [--runs=R]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "analysis/analysis_set.h"
#include "analysis/critical_path/critical_path.h"
#include "bench_model.h"

namespace {

using aiprof::model::Model;

Model MakeModel(uint64_t events) {
  Builder b;
  uint32_t host = b.AddThread(b.AddProcess(1000, -1), 1000);
  uint32_t device = b.AddProcess(0, 0);
  uint32_t streams[2] = {b.AddThread(device, 7), b.AddThread(device, 8)};
  auto& strings = b.m.strings;
  uint32_t cpu_op = strings.Intern("cpu_op"), kernel = strings.Intern("kernel"),
           annotation = strings.Intern("user_annotation"), runtime = strings.Intern("cuda_runtime");
  uint32_t launch = strings.Intern("cudaLaunchKernel"),
           sync = strings.Intern("cudaDeviceSynchronize");
  uint32_t ac2g = strings.Intern("ac2g");
  uint32_t nccl = strings.Intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  uint32_t kernels[4] = {strings.Intern("sgemm_128x64"), strings.Intern("elementwise_add"),
                         strings.Intern("softmax_fwd"), strings.Intern("layer_norm_bwd")};
  b.m.slices.ts.reserve(events);
  int64_t host_ns = 1'700'000'000'000'000'000, device_ns = host_ns + 5'000;
  uint64_t step = 0, written = 0, k = 0;
  auto& flows = b.m.flows;
  while (written < events) {
    int64_t step_begin = host_ns;
    uint32_t step_slice = b.Slice(host, step_begin, step_begin, 0, annotation);
    ++written;
    for (int i = 0; i < 1000 && written + 3 <= events; ++i, ++k) {
      const uint32_t call = b.Slice(host, host_ns, host_ns + 4'000, launch, cpu_op);
      device_ns = std::max(device_ns, host_ns + 2'000);
      uint32_t task;
      if (k % 50 == 0) {
        task = b.Slice(streams[1], device_ns, device_ns + 30'000, nccl, kernel);
      } else {
        task = b.Slice(streams[0], device_ns, device_ns + 5'000, kernels[k % 4], kernel);
      }
      flows.id.push_back(k + 1);
      flows.from_slice.push_back(call);
      flows.to_slice.push_back(task);
      flows.category.push_back(ac2g);
      device_ns += 5'500;
      host_ns += 5'000;
      written += 2;
    }
    // The step waits for its kernels, then the data loader runs.
    const int64_t sync_end = std::max(host_ns, device_ns + 30'000) + 2'000;
    b.Slice(host, host_ns, sync_end, sync, runtime);
    ++written;
    host_ns = sync_end + 20'000;
    b.m.slices.end[step_slice] = host_ns;
    b.m.slices.name[step_slice] = strings.Intern("ProfilerStep#" + std::to_string(step));
    b.m.recorded_steps.step.push_back(step++);
    b.m.recorded_steps.slice.push_back(step_slice);
  }
  for (uint32_t row = 0; row < b.m.slices.size(); ++row) {
    // Every host operator lies inside its step's range (nesting as the parser leaves it).
    if (b.m.slices.track[row] == host && b.m.slices.name[row] != b.m.slices.name[0] &&
        b.m.slices.category[row] != annotation) {
      b.m.slices.depth[row] = 1;
    }
  }
  aiprof::model::ResolveSteps(b.m);
  return std::move(b.m);
}

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = 10'000'000;
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--events=", 0) == 0) events = std::stoull(arg.substr(9));
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::stoi(arg.substr(7)));
  }
  Model model = MakeModel(events);
  int64_t model_bytes = g_allocated.load();
  aiprof::analysis::AnalysisSet set = aiprof::analysis::RunAnalyses(model);
  set.critical_path = {};
  std::vector<double> cpu, wall;
  int64_t extra_peak = 0;
  size_t steps = 0, segments = 0;
  int64_t step_ns = 0, projected[4] = {0, 0, 0, 0};
  for (int r = 0; r < runs; ++r) {
    const int64_t before = g_allocated.load();
    g_peak.store(before);
    auto start = std::chrono::steady_clock::now();
    double cpu_start = CpuSeconds();
    {
      aiprof::analysis::CriticalPathResult result =
          aiprof::analysis::ComputeCriticalPath(model, set);
      steps = result.steps.size();
      segments = result.segments.size();
      step_ns = result.step_ns;
      for (size_t i = 0; i < result.what_ifs.size() && i < 4; ++i)
        projected[i] = result.what_ifs[i].projected_ns;
    }
    cpu.push_back(CpuSeconds() - cpu_start);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    extra_peak = std::max(extra_peak, g_peak.load() - before);
  }
  double n = static_cast<double>(model.slices.size());
  std::printf("model: %zu slices, %zu flows, %zu steps, %.1f MB heap (%.1f bytes/slice)\n",
              model.slices.size(), model.flows.size(), model.steps.size(), model_bytes / 1e6,
              static_cast<double>(model_bytes) / n);
  std::printf(
      "critical path: %zu step(s), %zu path segments, %.3f ms of steps; projected "
      "%.3f / %.3f / %.3f / %.3f ms\n",
      steps, segments, step_ns / 1e6, projected[0] / 1e6, projected[1] / 1e6, projected[2] / 1e6,
      projected[3] / 1e6);
  std::printf(
      "graph + path + slack + 4 projections, median of %d: %.3f CPU s = %.2f M events/s "
      "[wall %.3f s]; peak extra heap %.1f MB = %.2fx the model's\n",
      runs, Median(cpu), n / Median(cpu) / 1e6, Median(wall), extra_peak / 1e6,
      static_cast<double>(extra_peak) / static_cast<double>(model_bytes));
  return 0;
}
