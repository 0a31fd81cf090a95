// bench_torch_callback: what capturing one PyTorch operator costs, on a real ATen op small
// enough that the capture shows (in-place add of 1-element tensors, one thread). Cases:
// no callback, an empty global RecordFunction callback (the floor any RecordFunction
// profiler pays; with inputs it also boxes the arguments), and libaiprof_torch.so inside
// an open runtime window, without and with record_shapes. Added ns per operator = case
// time - "none" time. torch.profiler is compared in bench/torch_overhead.py.
#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "aiprof/aiprof.h"

namespace {

std::unique_ptr<at::ObserverContext> EmptyEnter(const at::RecordFunction&) {
  return nullptr;
}
void EmptyExit(const at::RecordFunction&, at::ObserverContext*) {}

void AddLoop(benchmark::State& state) {
  at::Tensor a = at::ones({1});
  at::Tensor b = at::ones({1});
  for (auto _ : state) {
    a.add_(b);
    benchmark::DoNotOptimize(a.data_ptr());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_None(benchmark::State& state) {
  AddLoop(state);
}

void BM_EmptyCallback(benchmark::State& state) {
  auto handle = at::addGlobalCallback(at::RecordFunctionCallback(EmptyEnter, EmptyExit)
                                          .needsInputs(state.range(0) != 0)
                                          .needsIds(state.range(1) != 0));
  AddLoop(state);
  at::removeCallback(handle);
}

std::string LibraryDir() {
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&aiprofInit), &info);
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

bool AttachPlugin() {
  static bool attached = [] {
    void* plugin = dlopen((LibraryDir() + "/libaiprof_torch.so").c_str(), RTLD_NOW);
    if (plugin == nullptr) return false;
    auto attach = reinterpret_cast<int (*)()>(dlsym(plugin, "aiprof_torch_attach"));
    return attach != nullptr && attach() == 0;
  }();
  return attached;
}

void BM_Aiprof(benchmark::State& state) {
  const std::string output =
      (std::filesystem::temp_directory_path() / ("aiprof_bench_torch_" + std::to_string(getpid())))
          .string();
  if (aiprofInit(output.c_str()) != AIPROF_SUCCESS || !AttachPlugin()) {
    state.SkipWithError("runtime or torch plugin not available");
    return;
  }
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_TASK_TIME);
  aiprofConfigSetOption(config, "record_shapes", state.range(0) ? "true" : "false");
  aiprofConfigSetOption(config, "buffer_mb", "512");
  aiprofStart(config);
  AddLoop(state);
  aiprofStop(config);
  aiprofDestroyConfig(config);
  std::filesystem::remove_all(output);
}

// Fixed iterations keep every window within the buffer (64 bytes per operator).
constexpr int64_t kIterations = 1'000'000;
BENCHMARK(BM_None)->Iterations(kIterations);
BENCHMARK(BM_EmptyCallback)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"inputs", "ids"})
    ->Iterations(kIterations);
BENCHMARK(BM_Aiprof)->Arg(0)->Arg(1)->ArgName("shapes")->Iterations(kIterations);

}  // namespace

BENCHMARK_MAIN();
