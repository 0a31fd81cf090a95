#include "analysis/memory.h"

#include <gtest/gtest.h>

#include <map>

#include "analysis/analysis_set.h"
#include "analysis/hand_built_model.h"
#include "model/framework_operators.h"
#include "model/importer.h"
#include "model/nesting.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

// A torch allocator event as the torch importer writes it (CPU device: type 0, id -1;
// CUDA: type 1 and the device index).
void AddAllocatorEvent(HandBuiltModel& b, uint32_t thread, int64_t ts, int64_t bytes, uint64_t addr,
                       int64_t allocated, int64_t reserved, int64_t device_type = 0,
                       int64_t device_id = -1) {
  model::Model& m = b.mutable_model();
  const uint32_t args = model::ArgSetBuilder(&m)
                            .Int("Device Type", device_type)
                            .Int("Device Id", device_id)
                            .UInt("Addr", addr)
                            .Int("Bytes", bytes)
                            .Int("Total Allocated", allocated)
                            .Int("Total Reserved", reserved)
                            .Commit();
  m.instants.ts.push_back(ts);
  m.instants.track.push_back(thread);
  m.instants.name.push_back(m.strings.Intern("[memory]"));
  m.instants.category.push_back(m.strings.Intern("cpu_instant_event"));
  m.instants.args.push_back(args);
}

// One block per category:
//   A  @10   1000 B, outside every step, never freed               Parameter
//   H  @25     64 B, inside enumerate(DataLoader)                   Input
//   B  @106   400 B, aten::empty under aten::linear in forward,
//                    freed @170                                     Activation
//   C  @110   100 B, in aten::linear, freed @115 (before it ends)   Temporary
//   D  @156   300 B, aten::mm in backward, never freed             Gradient
//   E  @160    50 B, aten::mm in backward, freed @175 within it     Autograd
//   F  @186   200 B, in Optimizer.step, never freed                Optimizer state
//   G  @250   500 B, in step 2 outside any operator, freed @260     Unknown
HandBuiltModel CpuMemoryModel() {
  HandBuiltModel b;
  uint32_t main = b.AddProcess(100);
  b.AddStep(main, 1, 100, 200);
  b.AddStep(main, 2, 200, 300);
  b.AddSlice(main, 20, 30, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             "user_annotation");
  b.AddMarkerRange(main, 100, 140, "forward");
  b.AddSlice(main, 105, 120, "aten::linear", "cpu_op");
  b.AddSlice(main, 106, 107, "aten::empty", "cpu_op");
  b.AddMarkerRange(main, 150, 180, "backward");
  b.AddSlice(main, 155, 165, "aten::mm", "cpu_op");
  b.AddSlice(main, 185, 195, "Optimizer.step#SGD.step", "user_annotation");
  AddAllocatorEvent(b, main, 10, 1000, 0x10, 1000, 2048);
  AddAllocatorEvent(b, main, 25, 64, 0x80, 1064, 2048);
  AddAllocatorEvent(b, main, 106, 400, 0x20, 1464, 2048);
  AddAllocatorEvent(b, main, 110, 100, 0x30, 1564, 2048);
  AddAllocatorEvent(b, main, 115, -100, 0x30, 1464, 2048);
  AddAllocatorEvent(b, main, 156, 300, 0x40, 1764, 4096);
  AddAllocatorEvent(b, main, 160, 50, 0x50, 1814, 4096);
  AddAllocatorEvent(b, main, 170, -400, 0x20, 1414, 4096);
  AddAllocatorEvent(b, main, 175, -50, 0x50, 1364, 4096);
  AddAllocatorEvent(b, main, 186, 200, 0x60, 1564, 4096);
  AddAllocatorEvent(b, main, 250, 500, 0x70, 2064, 4096);
  AddAllocatorEvent(b, main, 260, -500, 0x70, 1564, 4096);
  model::ResolveNesting(b.mutable_model());
  return b;
}

TEST(Memory, FrameworkPoolPeaksAndSteps) {
  HandBuiltModel b = CpuMemoryModel();
  AnalysisSet set = RunAnalyses(b.model());
  const MemoryAnalysis& r = set.memory;
  EXPECT_EQ(r.inputs, std::vector<std::string>{"framework allocator events"});
  ASSERT_EQ(r.pools.size(), 1u);
  EXPECT_EQ(r.pools[0].name, "CPU");
  EXPECT_EQ(r.pools[0].source, MemoryPoolSource::kFrameworkAllocator);
  EXPECT_EQ(r.pools[0].samples.size(), 12u);
  EXPECT_EQ(r.pools[0].peak_allocated, 2064);
  EXPECT_EQ(r.pools[0].peak_allocated_ts, 250);
  EXPECT_EQ(r.pools[0].peak_reserved, 4096);

  ASSERT_EQ(r.steps.size(), 2u);
  const MemoryStepRow& s1 = r.steps[0];
  EXPECT_EQ(s1.step, 1u);
  EXPECT_EQ(s1.allocated_at_begin, 1064);
  EXPECT_EQ(s1.peak_allocated, 1814);
  EXPECT_EQ(s1.allocated_at_end, 1564);
  EXPECT_EQ(s1.peak_reserved, 4096);
  EXPECT_EQ(s1.allocations, 5u);
  EXPECT_EQ(s1.allocated_bytes, 1050);
  EXPECT_EQ(s1.frees, 3u);
  EXPECT_EQ(s1.freed_bytes, 550);
  const MemoryStepRow& s2 = r.steps[1];
  EXPECT_EQ(s2.step, 2u);
  EXPECT_EQ(s2.allocated_at_begin, 1564);
  EXPECT_EQ(s2.peak_allocated, 2064);
  EXPECT_EQ(s2.allocated_at_end, 1564);
  EXPECT_EQ(s2.allocations, 1u);
  EXPECT_EQ(s2.allocated_bytes, 500);
  EXPECT_EQ(s2.frees, 1u);
  EXPECT_EQ(s2.freed_bytes, 500);
}

TEST(Memory, TopOperatorsByAllocatedBytes) {
  HandBuiltModel b = CpuMemoryModel();
  AnalysisSet set = RunAnalyses(b.model());
  const auto& ops = set.memory.top_operators;
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[0].name, "(no operator)");
  EXPECT_EQ(ops[0].allocations, 2u);
  EXPECT_EQ(ops[0].allocated_bytes, 1500);
  EXPECT_EQ(ops[0].max_allocation, 1000);
  EXPECT_EQ(ops[0].freed_bytes, 500);
  EXPECT_EQ(ops[1].name, "aten::linear (aten::empty)");
  EXPECT_EQ(ops[1].allocated_bytes, 400);
  EXPECT_EQ(ops[1].freed_bytes, 400);
  EXPECT_EQ(ops[2].name, "aten::mm");
  EXPECT_EQ(ops[2].allocations, 2u);
  EXPECT_EQ(ops[2].allocated_bytes, 350);
  EXPECT_EQ(ops[2].max_allocation, 300);
  EXPECT_EQ(ops[2].freed_bytes, 50);
  EXPECT_EQ(ops[3].name, "Optimizer.step#SGD.step");
  EXPECT_EQ(ops[3].allocated_bytes, 200);
  EXPECT_EQ(ops[4].name, "aten::linear");
  EXPECT_EQ(ops[4].allocated_bytes, 100);
  EXPECT_EQ(ops[5].name, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(ops[5].allocated_bytes, 64);

  MemoryAnalysisOptions two;
  two.top_operators = 2;
  EXPECT_EQ(ComputeMemoryAnalysis(b.model(), set.steps, two).top_operators.size(), 2u);
}

TEST(Memory, CategoryTimeline) {
  HandBuiltModel b = CpuMemoryModel();
  AnalysisSet set = RunAnalyses(b.model());
  using Points = std::vector<std::pair<int64_t, int64_t>>;
  const auto& tracks = set.memory.category_tracks;
  ASSERT_EQ(tracks.size(), 8u);
  const std::vector<std::pair<MemoryCategory, Points>> expected = {
      {MemoryCategory::kParameter, {{10, 1000}}},
      {MemoryCategory::kOptimizerState, {{186, 200}}},
      {MemoryCategory::kInput, {{25, 64}}},
      {MemoryCategory::kTemporary, {{110, 100}, {115, 0}}},
      {MemoryCategory::kActivation, {{106, 400}, {170, 0}}},
      {MemoryCategory::kGradient, {{156, 300}}},
      {MemoryCategory::kAutograd, {{160, 50}, {175, 0}}},
      {MemoryCategory::kUnknown, {{250, 500}, {260, 0}}},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(tracks[i].pool, 0u);
    EXPECT_EQ(tracks[i].category, expected[i].first) << i;
    EXPECT_EQ(tracks[i].points, expected[i].second) << MemoryCategoryName(tracks[i].category);
    EXPECT_EQ(tracks[i].peak, expected[i].second[0].second);
  }
}

// The roles the Python API records when a window stops come first for blocks still
// allocated at the end: D (never freed, in backward) recorded as a parameter's storage is a
// parameter, A (outside every step) recorded as a gradient's is a gradient; B recorded as a
// parameter's was freed, so the address was reused and its own rule holds (Activation).
TEST(Memory, RecordedTensorRolesComeFirstForLiveBlocks) {
  HandBuiltModel b = CpuMemoryModel();
  b.mutable_model().processes.metadata[0] =
      R"({"metadata": {"memory_roles": {"parameter": [64, 32], "gradient": [16, 64]}}})";
  AnalysisSet set = RunAnalyses(b.model());
  std::map<int64_t, MemoryCategory> category_by_bytes;
  for (const MemoryBlock& block : set.memory.blocks)
    category_by_bytes[block.bytes] = block.category;
  EXPECT_EQ(category_by_bytes[300], MemoryCategory::kParameter);       // D: parameter listed first
  EXPECT_EQ(category_by_bytes[1000], MemoryCategory::kGradient);       // A
  EXPECT_EQ(category_by_bytes[400], MemoryCategory::kActivation);      // B: freed
  EXPECT_EQ(category_by_bytes[200], MemoryCategory::kOptimizerState);  // F: its own rule
  const auto& tracks = set.memory.category_tracks;
  auto peak_of = [&](MemoryCategory category) {
    for (const MemoryCategoryTrack& track : tracks) {
      if (track.category == category) return track.peak;
    }
    return int64_t{-1};
  };
  EXPECT_EQ(peak_of(MemoryCategory::kParameter), 300);
  EXPECT_EQ(peak_of(MemoryCategory::kGradient), 1000);
}

// Each event counts for the innermost framework operator around it on its thread (self)
// and every operator enclosing that one (inclusive), as torch.profiler's CPU Mem / Self CPU
// Mem: allocations add, frees subtract. Marker ranges ("forward", "backward") and step
// records (AddStep: prof.step() without a schedule) are not operators; a ProfilerStep#
// record_function is (OperatorsNestAcrossTheLanesOfAThread).
const OperatorMemoryUsage* UsageByName(const model::Model& m, const MemoryAnalysis& r,
                                       std::string_view name) {
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (m.Str(m.slices.name[row]) == name) return r.UsageOf(row);
  }
  return nullptr;
}

TEST(Memory, OperatorSelfAndInclusiveMemory) {
  HandBuiltModel b = CpuMemoryModel();
  AnalysisSet set = RunAnalyses(b.model());
  const MemoryAnalysis& r = set.memory;
  const model::SliceTable& s = b.model().slices;
  auto usage = [&](std::string_view name) { return UsageByName(b.model(), r, name); };
  struct Expected {
    const char* name;
    int64_t self, inclusive;
    uint32_t events;
  };
  for (const Expected& e : std::initializer_list<Expected>{
           {"aten::empty", 400, 400, 1},
           {"aten::linear", 0, 400, 3},  // +100 -100 of its own, aten::empty's 400
           {"aten::mm", 350, 350, 2},
           {"Optimizer.step#SGD.step", 200, 200, 1},
           {"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 64, 64, 1}}) {
    const OperatorMemoryUsage* u = usage(e.name);
    ASSERT_NE(u, nullptr) << e.name;
    EXPECT_EQ(u->self_host_bytes, e.self) << e.name;
    EXPECT_EQ(u->host_bytes, e.inclusive) << e.name;
    EXPECT_EQ(u->host_events, e.events) << e.name;
    EXPECT_EQ(u->device_bytes, 0) << e.name;
    EXPECT_EQ(u->device_events, 0u) << e.name;
  }
  EXPECT_EQ(usage("forward"), nullptr);         // a marker range
  EXPECT_EQ(usage("ProfilerStep#1"), nullptr);  // a step record
  // A @10, the frees @170 and @175 after aten::mm ended, G @250 and its free @260.
  EXPECT_EQ(r.events_outside_operators, (std::vector<uint32_t>{0, 7, 8, 10, 11}));

  // Blocks: each allocation with its free and the operator that allocated it.
  ASSERT_EQ(r.blocks.size(), 8u);
  const MemoryBlock& activation = r.blocks[2];  // B @106, freed @170
  EXPECT_EQ(b.model().instants.ts[activation.allocation], 106);
  EXPECT_EQ(b.model().instants.ts[activation.release], 170);
  EXPECT_EQ(b.model().Str(s.name[activation.op]), "aten::empty");
  EXPECT_EQ(activation.bytes, 400);
  EXPECT_EQ(r.blocks[0].op, model::kNoRow);       // A, outside every operator
  EXPECT_EQ(r.blocks[0].release, model::kNoRow);  // never freed
}

// Device (CUDA) allocator events count as CUDA Mem, host ones as CPU Mem, on the thread
// that allocated: an operator running on another thread at the time is not charged.
TEST(Memory, DeviceMemoryAndOtherThreads) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  const uint32_t other = b.AddThread(0, 101);
  b.AddSlice(main, 100, 200, "aten::linear", "cpu_op");
  b.AddSlice(main, 110, 150, "aten::addmm", "cpu_op");
  b.AddSlice(other, 100, 200, "aten::relu", "cpu_op");
  AddAllocatorEvent(b, main, 120, 4096, 0x10, 4096, 8192, 1, 0);
  AddAllocatorEvent(b, main, 130, 64, 0x20, 64, 0);
  AddAllocatorEvent(b, main, 160, -4096, 0x10, 0, 8192, 1, 0);
  model::ResolveNesting(b.mutable_model());
  const MemoryAnalysis r = RunAnalyses(b.model()).memory;
  const OperatorMemoryUsage* addmm = UsageByName(b.model(), r, "aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->self_device_bytes, 4096);
  EXPECT_EQ(addmm->self_host_bytes, 64);
  const OperatorMemoryUsage* linear = UsageByName(b.model(), r, "aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->self_device_bytes, -4096);
  EXPECT_EQ(linear->device_bytes, 0);
  EXPECT_EQ(linear->device_events, 2u);
  EXPECT_EQ(linear->host_bytes, 64);
  EXPECT_EQ(linear->host_events, 1u);
  EXPECT_EQ(UsageByName(b.model(), r, "aten::relu"), nullptr);  // on the other thread
  EXPECT_TRUE(r.events_outside_operators.empty());
}

// A thread's slices on two lanes (a Python frame that ends inside the step pushed the step
// range to a second lane): operators still nest by time on the thread, as torch nests them,
// so the step holds the operator and the events on the first lane.
TEST(Memory, OperatorsNestAcrossTheLanesOfAThread) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(100);
  model::Model& m = b.mutable_model();
  const uint32_t second_lane = static_cast<uint32_t>(m.tracks.size());
  m.tracks.thread.push_back(main);
  m.tracks.lane.push_back(1);
  b.AddSlice(main, 90, 250, "train.py(5): step", "python_function");
  b.AddSlice(main, 150, 200, "aten::addmm", "cpu_op");
  b.AddSlice(second_lane, 100, 300, "ProfilerStep#1", "user_annotation");
  AddAllocatorEvent(b, main, 160, 100, 0x10, 100, 0);
  AddAllocatorEvent(b, main, 260, -100, 0x10, 0, 0);
  AddAllocatorEvent(b, main, 320, 8, 0x20, 8, 0);
  model::ResolveNesting(m);
  const model::FrameworkOperators ops = model::FindFrameworkOperators(b.model());
  ASSERT_EQ(ops.size(), 2u);  // the Python frame is no operator
  const uint32_t addmm = ops.IndexOf(1), step = ops.IndexOf(2);
  EXPECT_EQ(ops.parent[addmm], step);
  EXPECT_EQ(ops.parent[step], model::kNoRow);
  const MemoryAnalysis r = RunAnalyses(b.model()).memory;
  const OperatorMemoryUsage* op = UsageByName(b.model(), r, "aten::addmm");
  const OperatorMemoryUsage* step_usage = UsageByName(b.model(), r, "ProfilerStep#1");
  ASSERT_NE(op, nullptr);
  ASSERT_NE(step_usage, nullptr);
  EXPECT_EQ(op->self_host_bytes, 100);
  EXPECT_EQ(step_usage->self_host_bytes, -100);
  EXPECT_EQ(step_usage->host_bytes, 0);
  EXPECT_EQ(step_usage->host_events, 2u);
  EXPECT_EQ(r.events_outside_operators, std::vector<uint32_t>{2});  // @320, after the step
}

// GPU 0 (CUDA source): CUPTI allocation counter and copies/sets; steps on the host thread.
TEST(Memory, DeviceCounterAndTransfers) {
  HandBuiltModel b;
  uint32_t host = b.AddProcess(100);
  uint32_t stream = b.AddProcess(0, 0);
  b.AddStep(host, 1, 0, 100);
  b.AddStep(host, 2, 100, 200);
  model::Model& m = b.mutable_model();
  m.counter_series.name.push_back(m.strings.Intern("Device Memory Allocated"));
  m.counter_series.process.push_back(1);
  m.counter_series.scope.push_back(0);
  m.counter_series.instance.push_back(0);
  m.counter_series.unit.push_back(m.strings.Intern("bytes"));
  for (auto [ts, value] :
       std::vector<std::pair<int64_t, double>>{{10, 1000}, {120, 3000}, {150, 2000}}) {
    m.counters.series.push_back(0);
    m.counters.ts.push_back(ts);
    m.counters.value.push_back(value);
  }
  auto copy = [&](int64_t ts, int64_t end, std::string_view name, std::string_view category,
                  uint64_t bytes) {
    uint32_t slice = b.AddSlice(stream, ts, end, name, category);
    m.slices.args[slice] = model::ArgSetBuilder(&m).UInt("bytes", bytes).Commit();
  };
  copy(20, 30, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 4096);
  copy(130, 140, "Memcpy DtoH (Device -> Pageable)", "gpu_memcpy", 1024);
  copy(150, 155, "Memset (Device)", "gpu_memset", 512);
  copy(250, 260, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 100);

  AnalysisSet set = RunAnalyses(b.model());
  const MemoryAnalysis& r = set.memory;
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"CUPTI allocations", "device copies"}));
  ASSERT_EQ(r.pools.size(), 1u);
  EXPECT_EQ(r.pools[0].name, "GPU 0 allocated (CUPTI)");
  EXPECT_EQ(r.pools[0].peak_allocated, 3000);
  EXPECT_EQ(r.pools[0].peak_allocated_ts, 120);
  EXPECT_EQ(r.pools[0].peak_reserved, -1);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].allocated_at_begin, 0);
  EXPECT_EQ(r.steps[0].peak_allocated, 1000);
  EXPECT_EQ(r.steps[0].allocated_at_end, 1000);
  EXPECT_EQ(r.steps[1].allocated_at_begin, 1000);
  EXPECT_EQ(r.steps[1].peak_allocated, 3000);
  EXPECT_EQ(r.steps[1].allocated_at_end, 2000);
  EXPECT_TRUE(r.category_tracks.empty());

  ASSERT_EQ(r.transfers.size(), 6u);
  auto check = [&](size_t i, bool whole, uint64_t step, const char* kind, uint64_t count,
                   int64_t bytes, int64_t time) {
    EXPECT_EQ(r.transfers[i].whole_run, whole) << i;
    if (!whole) {
      EXPECT_EQ(r.transfers[i].step, step) << i;
    }
    EXPECT_EQ(r.transfers[i].kind, kind) << i;
    EXPECT_EQ(r.transfers[i].count, count) << i;
    EXPECT_EQ(r.transfers[i].bytes, bytes) << i;
    EXPECT_EQ(r.transfers[i].time_ns, time) << i;
  };
  check(0, true, 0, "Memcpy DtoH", 1, 1024, 10);
  check(1, true, 0, "Memcpy HtoD", 2, 4196, 20);
  check(2, true, 0, "Memset", 1, 512, 5);
  check(3, false, 1, "Memcpy HtoD", 1, 4096, 10);
  check(4, false, 2, "Memcpy DtoH", 1, 1024, 10);
  check(5, false, 2, "Memset", 1, 512, 5);
}

// Each pool's capacity is what the collection recorded: the host's MemTotal for the CPU
// pool, the device's memory for a device pool; nothing recorded, no capacity.
TEST(Memory, CapacitiesFromTheRecordedHostAndDevice) {
  HandBuiltModel cpu = CpuMemoryModel();
  EXPECT_EQ(RunAnalyses(cpu.model()).memory.pools.at(0).capacity, 0);
  model::Model& m = cpu.mutable_model();
  m.hosts.push_back({m.strings.Intern("host"), uint64_t{64} << 30});
  const MemoryPool host_pool = RunAnalyses(cpu.model()).memory.pools.at(0);
  EXPECT_EQ(host_pool.capacity, int64_t{64} << 30);
  EXPECT_EQ(host_pool.capacity_source, "host MemTotal");

  HandBuiltModel gpu;
  gpu.AddProcess(100);
  const uint32_t device_thread = gpu.AddProcess(0, 0);
  model::Model& g = gpu.mutable_model();
  const uint32_t device_process = g.ProcessOfThread(device_thread);
  g.counter_series.name.push_back(g.strings.Intern("Device Memory Allocated"));
  g.counter_series.process.push_back(device_process);
  g.counter_series.scope.push_back(0);
  g.counter_series.instance.push_back(0);
  g.counter_series.unit.push_back(g.strings.Intern("bytes"));
  g.counters.series.push_back(0);
  g.counters.ts.push_back(10);
  g.counters.value.push_back(1000);
  model::DeviceProperties device;
  device.process = device_process;
  device.total_memory = 85021163520;
  g.devices.push_back(device);
  const MemoryPool device_pool = RunAnalyses(gpu.model()).memory.pools.at(0);
  EXPECT_EQ(device_pool.name, "GPU 0 allocated (CUPTI)");
  EXPECT_EQ(device_pool.capacity, 85021163520);
  EXPECT_EQ(device_pool.capacity_source, "CUDA device record");
}

}  // namespace
}  // namespace aiprof::analysis
