// Cost of all analyses together (analysis::RunAnalyses: steps, communication
// classification, overlap lanes, step breakdown, step trace) on a CUDA-shaped model built in
// memory: per step, one host launch operator per kernel on the host thread, the kernels on
// two device streams with small gaps, an NCCL all-reduce kernel every 50 kernels that
// overlaps the next ones, ProfilerStep ranges every 1000 launches. Events = slices.
// Memory: every allocation of the process is counted (operator new below), so the figure is
// the analyses' own peak heap on top of the model, against the model's heap.
//
//   bench_analysis [--events=N] [--runs=R]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "analysis/analysis_set.h"
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
           annotation = strings.Intern("user_annotation");
  uint32_t launch = strings.Intern("cudaLaunchKernel");
  uint32_t nccl = strings.Intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  uint32_t kernels[4] = {strings.Intern("sgemm_128x64"), strings.Intern("elementwise_add"),
                         strings.Intern("softmax_fwd"), strings.Intern("layer_norm_bwd")};
  b.m.slices.ts.reserve(events);
  int64_t host_ns = 1'700'000'000'000'000'000, device_ns = host_ns + 5'000;
  uint64_t step = 0, written = 0, k = 0;
  while (written < events) {
    int64_t step_begin = host_ns;
    uint32_t step_slice = b.Slice(host, step_begin, step_begin, 0, annotation);
    ++written;
    for (int i = 0; i < 1000 && written + 2 <= events; ++i, ++k) {
      b.Slice(host, host_ns, host_ns + 4'000, launch, cpu_op);
      device_ns = std::max(device_ns, host_ns + 2'000);
      if (k % 50 == 0) {
        b.Slice(streams[1], device_ns, device_ns + 30'000, nccl, kernel);
      } else {
        b.Slice(streams[0], device_ns, device_ns + 5'000, kernels[k % 4], kernel);
      }
      device_ns += 5'500;
      host_ns += 5'000;
      written += 2;
    }
    host_ns += 20'000;  // the data loader between steps
    b.m.slices.end[step_slice] = host_ns;
    b.m.slices.name[step_slice] = strings.Intern("ProfilerStep#" + std::to_string(step));
    b.m.recorded_steps.step.push_back(step++);
    b.m.recorded_steps.slice.push_back(step_slice);
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
  std::vector<double> cpu, wall;
  int64_t extra_peak = 0;
  size_t rows = 0, scopes = 0;
  for (int r = 0; r < runs; ++r) {
    g_peak.store(g_allocated.load());
    auto start = std::chrono::steady_clock::now();
    double cpu_start = CpuSeconds();
    {
      aiprof::analysis::AnalysisSet set = aiprof::analysis::RunAnalyses(model);
      rows = set.step_breakdown.rows.size();
      scopes = set.overlap.scopes.size();
    }
    cpu.push_back(CpuSeconds() - cpu_start);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    extra_peak = std::max(extra_peak, g_peak.load() - model_bytes);
  }
  double n = static_cast<double>(model.slices.size());
  std::printf("model: %zu slices, %zu steps, %.1f MB heap (%.1f bytes/slice)\n",
              model.slices.size(), model.steps.size(), model_bytes / 1e6,
              static_cast<double>(model_bytes) / n);
  std::printf("analyses: %zu scope(s), %zu step rows\n", scopes, rows);
  std::printf(
      "all analyses, median of %d: %.3f CPU s = %.2f M events/s [wall %.3f s = %.2f M events/s]; "
      "peak extra heap %.1f MB = %.2fx the model's\n",
      runs, Median(cpu), n / Median(cpu) / 1e6, Median(wall), n / Median(wall) / 1e6,
      extra_peak / 1e6, static_cast<double>(extra_peak) / static_cast<double>(model_bytes));
  return 0;
}
