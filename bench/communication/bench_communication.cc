// Cost of classifying communication operations (model/communication.h) when a trace is
// parsed: a model of 1 M operator slices, one in 1000 or one in 20 of them a gloo
// collective with input shapes (4 distinct shapes), and the same model without any
// collective (the common case, which must cost next to nothing). Items are model slices.
#include <benchmark/benchmark.h>

#include <chrono>

#include "model/communication.h"
#include "model/importer.h"

namespace {

using aiprof::model::Model;

constexpr uint32_t kSlices = 1'000'000;

// One slice in `period` is a gloo collective (0: none).
Model MakeModel(uint32_t period) {
  const bool with_collectives = period > 0;
  Model m;
  aiprof::model::ImportContext context(&m);
  m.processes.pid.push_back(1);
  m.processes.host.push_back(0);
  m.processes.name.push_back(0);
  m.processes.label.push_back(0);
  m.processes.sort_index.push_back(1);
  m.processes.device_id.push_back(-1);
  m.processes.rank.push_back(0);
  m.processes.metadata.emplace_back(R"({"rank": 0, "world_size": 8})");
  context.SetProcess(0);
  const uint32_t track = context.MainTrack(context.Thread(0, 1));
  const auto cpu_op = m.strings.Intern("cpu_op");
  const auto annotation = m.strings.Intern("user_annotation");
  const aiprof::model::StringId names[] = {
      m.strings.Intern("aten::mm"), m.strings.Intern("aten::add"),
      with_collectives ? m.strings.Intern("gloo:all_reduce") : 0};
  const char* shapes[] = {"[[1024, 1024]]", "[[4096]]", "[[10]]", "[[128, 64]]"};
  for (uint32_t i = 0; i < kSlices; ++i) {
    const bool collective = with_collectives && i % period == 0;
    const uint32_t args = context.Args()
                              .Json("Input Dims", shapes[i % 4])
                              .Json("Input type", R"(["float"])")
                              .Commit();
    context.AddSlice(track, uint64_t{i} * 100, uint64_t{i} * 100 + 50,
                     collective ? names[2] : names[i % 2], collective ? annotation : cpu_op, args);
  }
  return m;
}

void BM_Classify(benchmark::State& state) {
  const Model m = MakeModel(static_cast<uint32_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(aiprof::model::ClassifyCommunication(m).ops);
  state.SetItemsProcessed(state.iterations() * kSlices);
}
BENCHMARK(BM_Classify)->Arg(0)->Arg(1000)->Arg(20)->Unit(benchmark::kMillisecond);

// Manual time: only the AnnotateCommunication call, not building or freeing the model.
void BM_Annotate(benchmark::State& state) {
  for (auto _ : state) {
    Model m = MakeModel(static_cast<uint32_t>(state.range(0)));
    const auto start = std::chrono::steady_clock::now();
    aiprof::model::AnnotateCommunication(m);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    benchmark::DoNotOptimize(m.args.key.size());
    state.SetIterationTime(elapsed.count());
  }
  state.SetItemsProcessed(state.iterations() * kSlices);
}
BENCHMARK(BM_Annotate)
    ->Arg(0)
    ->Arg(1000)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
