// Round trip: a raw run (written as the runtime writes it: steps, PyTorch operators with
// forward/backward links and allocator events, mstx ranges and marks, CUDA launches, kernels
// and a copy on two streams, counters, drops), exported with aiprof's Kineto writer as `aiprof
// export` writes it (Overlap Analysis lanes included), imported back: the same model rows and the
// same analysis results, to the nanosecond the JSON keeps (µs with three decimals).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/analysis_set.h"
#include "export/timeline/trace_json.h"
#include "format/records_cuda.h"
#include "format/records_torch.h"
#include "kineto/trace_files.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof {
namespace {

using format::CudaRecordKind;
using format::TorchKind;

constexpr uint32_t kPid = 4242, kMain = 4242, kWorker = 4250;

constexpr uint8_t Kind(CudaRecordKind kind) {
  return static_cast<uint8_t>(kind);
}

struct KernelWords {
  format::CudaSpan span;
  format::CudaKernelGeometry geometry;
  format::CudaKernelResources resources;
  format::CudaGraphNode graph;
  format::CudaKernelLaunch launch;
};

struct CopyWords {
  format::CudaSpan span;
  format::CudaCopy copy;
  format::CudaGraphNode graph;
};

struct OpWords {
  format::TorchOpIds ids;
  format::TorchOpEnd end;
};

// Times in ns of CLOCK_MONOTONIC_RAW (the file's clock); realtime = + 1.7e18.
void WriteRawRun(const std::string& path) {
  testing::RawProcessWriter w(
      path, kPid, testing::MetadataJson(kPid, "node1", false, 0, 0, 1'700'000'000'000'000'000, 0));
  constexpr uint64_t kOffset = 1'700'000'000'000'000'000;
  w.ClockSync(1'000'000, 1'000'000, 1'000'000 + kOffset);
  w.ThreadName(kMain, 1'000'000, "main");
  w.ThreadName(kWorker, 1'000'000, "loader");
  const uint32_t launch = w.Intern("cudaLaunchKernel_v7000");
  const uint32_t memcpy_async = w.Intern("cudaMemcpyAsync_v3020");
  const uint32_t gemm = w.Intern("_Z4gemmPfS_S_");
  const uint32_t relu = w.Intern("_Z4reluPf");
  const uint32_t nccl = w.Intern("ncclKernel_AllReduce_RING_LL_Sum_float");
  const uint32_t mm = w.Intern("aten::mm");
  const uint32_t add = w.Intern("aten::add");
  const uint32_t backward = w.Intern("MmBackward0");
  uint32_t correlation = 1;
  uint64_t record = 1;
  for (uint32_t step = 0; step < 4; ++step) {
    const uint64_t t = 2'000'000 + uint64_t{step} * 1'000'000;  // one step per ms
    w.StepBegin(kMain, t, step);
    auto& main = w.Thread(kMain);
    // Forward op with sequence number 10 + step; its backward op names it.
    main.AddWith(static_cast<uint8_t>(TorchKind::kOp), t + 10'000, 0, mm,
                 OpWords{{record++, 10 + step}, {t + 200'123, 0, 1}});
    main.AddWith(static_cast<uint8_t>(TorchKind::kOp), t + 20'000, 0, add,
                 OpWords{{record++, -1}, {t + 60'000, 0, 1}});
    main.AddWith(Kind(CudaRecordKind::kApi), t + 30'000, 0, launch,
                 format::CudaApiCall{t + 35'500, correlation, 211});
    main.AddWith(Kind(CudaRecordKind::kApi), t + 40'000, 0, memcpy_async,
                 format::CudaApiCall{t + 44'000, correlation + 1, 41});
    main.AddWith(Kind(CudaRecordKind::kApi), t + 70'000, 0, launch,
                 format::CudaApiCall{t + 75'000, correlation + 2, 211});
    main.AddWith(Kind(CudaRecordKind::kApi), t + 210'000, 0, launch,
                 format::CudaApiCall{t + 215'000, correlation + 3, 211});
    main.AddWith(static_cast<uint8_t>(TorchKind::kOp), t + 300'000, 0, backward,
                 OpWords{{record++, 10 + step}, {t + 400'000, 1, 2}});
    // An allocation inside aten::mm and its release inside the backward op (CUDA:0).
    struct MemoryWords {
      format::TorchMemoryBlock block;
      format::TorchMemoryTotals totals;
    };
    const uint16_t cuda0 = 1 | (1 << 8);  // device type 1 (CUDA), index 0 + 1
    main.AddWith(static_cast<uint8_t>(TorchKind::kMemory), t + 12'000, cuda0, 0,
                 MemoryWords{{0x7f0000 + step, 1 << 20}, {(2 + step) << 20, 8 << 20}});
    main.AddWith(static_cast<uint8_t>(TorchKind::kMemory), t + 310'000, cuda0, 0,
                 MemoryWords{{0x7f0000 + step, -(1 << 20)}, {(1 + step) << 20, 8 << 20}});
    w.Push(kMain, t + 500'000, "optimizer");
    w.Pop(kMain, t + 600'000);
    w.Mark(kMain, t + 650'000, "checkpoint");
    auto& cupti = w.Thread(kWorker + 100);
    KernelWords k{};
    k.span = {t + 140'000, correlation, 7};
    k.geometry = {64, 1, 1, 1};
    k.resources = {128, 1, 1, 32, 0};
    cupti.AddWith(Kind(CudaRecordKind::kKernel), t + 40'000, 0, gemm, k);
    CopyWords copy{{t + 90'000, correlation + 1, 8}, {1 << 20, 1, 1, 1, 3, 1}, {}};
    cupti.AddWith(Kind(CudaRecordKind::kMemcpy), t + 50'000, 0, 0, copy);
    k.span = {t + 260'000, correlation + 2, 7};
    cupti.AddWith(Kind(CudaRecordKind::kKernel), t + 150'000, 0, nccl, k);
    k.span = {t + 300'010, correlation + 3, 8};
    cupti.AddWith(Kind(CudaRecordKind::kKernel), t + 220'000, 0, relu, k);
    correlation += 4;
    w.RangeStart(kWorker, t + 100'000, 100 + step, "load batch");
    w.RangeEnd(kWorker, t + 450'000, 100 + step);
    w.Counter(kMain, t + 5'000, "queue depth", step * 1.5, format::CounterScope::kProcess, kPid,
              "");
    w.Counter(kMain, t + 5'000, "CPU Usage", 40.0 + step, format::CounterScope::kCpu, 3, "%");
    w.StepEnd(kMain, t + 900'000, step);
    if (step == 2) w.Drops(kMain, t + 800'000, 1, 17);
    w.Flush();
  }
  w.ClockSync(7'000'000, 7'000'000, 7'000'000 + kOffset);
  w.Close();
}

using SliceKey =
    std::tuple<std::string, std::string, int64_t, int64_t, uint32_t, uint32_t, uint16_t, uint8_t>;

// Every slice as (name, category, start, end, pid, tid, depth, flags), sorted.
std::vector<SliceKey> Slices(const model::Model& m) {
  std::vector<SliceKey> out;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    const uint32_t thread = m.ThreadOfSlice(row);
    out.emplace_back(std::string(m.Str(m.slices.name[row])),
                     std::string(m.Str(m.slices.category[row])), m.slices.ts[row],
                     m.slices.end[row], m.processes.pid[m.threads.process[thread]],
                     m.threads.tid[thread], m.slices.depth[row], m.slices.flags[row]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every argument of every slice as "name@start: key=value".
std::multiset<std::string> SliceArgs(const model::Model& m) {
  std::multiset<std::string> out;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    const uint32_t set = m.slices.args[row];
    if (set == 0) continue;
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      const bool text =
          m.args.type[i] == model::ArgType::kString || m.args.type[i] == model::ArgType::kJson;
      out.insert(std::string(m.Str(m.slices.name[row])) + "@" + std::to_string(m.slices.ts[row]) +
                 ": " + std::string(m.Str(m.args.key[i])) + "=" +
                 (text ? std::string(m.Str(static_cast<model::StringId>(m.args.value[i])))
                       : std::to_string(m.args.value[i])));
    }
  }
  return out;
}

std::multiset<std::string> Flows(const model::Model& m) {
  std::multiset<std::string> out;
  for (size_t f = 0; f < m.flows.size(); ++f) {
    auto end = [&](uint32_t slice) {
      return std::string(m.Str(m.slices.name[slice])) + "@" + std::to_string(m.slices.ts[slice]);
    };
    out.insert(std::string(m.Str(m.flows.category[f])) + " " + std::to_string(m.flows.id[f]) +
               ": " + end(m.flows.from_slice[f]) + " -> " + end(m.flows.to_slice[f]));
  }
  return out;
}

std::multiset<std::string> Markers(const model::Model& m) {
  std::multiset<std::string> out;
  for (size_t i = 0; i < m.markers.size(); ++i) {
    const bool instant = m.markers.is_instant[i] != 0;
    const uint32_t row = m.markers.row[i];
    const model::StringId name = instant ? m.instants.name[row] : m.slices.name[row];
    const int64_t ts = instant ? m.instants.ts[row] : m.slices.ts[row];
    out.insert(std::string(m.Str(name)) + "@" + std::to_string(ts) + " " +
               std::string(m.Str(m.markers.domain[i])) + " " +
               std::to_string(static_cast<int>(m.markers.event_type[i])));
  }
  return out;
}

std::multiset<std::string> Counters(const model::Model& m) {
  std::multiset<std::string> out;
  for (size_t i = 0; i < m.counters.size(); ++i) {
    const uint32_t s = m.counters.series[i];
    out.insert(std::string(m.Str(m.counter_series.name[s])) + " scope " +
               std::to_string(m.counter_series.scope[s]) + "/" +
               std::to_string(m.counter_series.instance[s]) + " @" +
               std::to_string(m.counters.ts[i]) + " = " + std::to_string(m.counters.value[i]));
  }
  return out;
}

class KinetoRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string raw = (dir_.path() / "aiprof.4242.data").string();
    WriteRawRun(raw);
    raw_ = model::ParseFiles({raw});
    ASSERT_TRUE(raw_.files[0].report.clean()) << raw_.files[0].report.Summary();
    raw_set_ = analysis::RunAnalyses(raw_);
    const std::string trace = (dir_.path() / "trace_view.json").string();
    std::string error;
    ASSERT_TRUE(exporter::WriteTraceJson(raw_, trace, &error, &raw_set_.overlap, &raw_set_.memory,
                                         &raw_set_.cpu_profile))
        << error;
    imported_ = model::ParseFiles({trace});
    ASSERT_TRUE(imported_.files[0].report.clean()) << imported_.files[0].report.Summary();
    imported_set_ = analysis::RunAnalyses(imported_);
  }

  testing::TempDir dir_{"kineto_round_trip"};
  model::Model raw_, imported_;
  analysis::AnalysisSet raw_set_, imported_set_;
};

TEST_F(KinetoRoundTrip, TheModelRowsComeBack) {
  ASSERT_GT(raw_.slices.size(), 40u);
  EXPECT_EQ(Slices(imported_), Slices(raw_));
  EXPECT_EQ(SliceArgs(imported_), SliceArgs(raw_));
  ASSERT_GT(raw_.flows.size(), 10u) << "ac2g and fwdbwd flows";
  EXPECT_EQ(Flows(imported_), Flows(raw_));
  ASSERT_GT(raw_.markers.size(), 0u);
  EXPECT_EQ(Markers(imported_), Markers(raw_));
  EXPECT_EQ(Counters(imported_), Counters(raw_));
  EXPECT_EQ(imported_.instants.size(), raw_.instants.size());
  EXPECT_EQ(imported_.drops.total(), raw_.drops.total());
  ASSERT_EQ(imported_.processes.size(), raw_.processes.size());
  for (uint32_t p = 0; p < raw_.processes.size(); ++p) {
    EXPECT_EQ(imported_.processes.pid[p], raw_.processes.pid[p]);
    EXPECT_EQ(imported_.processes.device_id[p], raw_.processes.device_id[p]);
    EXPECT_EQ(imported_.processes.rank[p], raw_.processes.rank[p]);
    EXPECT_EQ(imported_.Str(imported_.processes.label[p]), raw_.Str(raw_.processes.label[p]));
  }
  std::map<uint32_t, std::string> raw_names, imported_names;
  for (uint32_t t = 0; t < raw_.threads.size(); ++t) {
    raw_names[raw_.threads.tid[t]] = raw_.Str(raw_.threads.name[t]);
  }
  for (uint32_t t = 0; t < imported_.threads.size(); ++t) {
    imported_names[imported_.threads.tid[t]] = imported_.Str(imported_.threads.name[t]);
  }
  EXPECT_EQ(imported_names[kMain], "main");
  EXPECT_EQ(imported_names[kWorker], "loader");
}

TEST_F(KinetoRoundTrip, TheAnalysesGiveTheSameResults) {
  const analysis::AnalysisInputs& a = raw_set_.inputs;
  const analysis::AnalysisInputs& b = imported_set_.inputs;
  EXPECT_EQ(b.device_run, a.device_run);
  EXPECT_EQ(b.compute, a.compute);
  EXPECT_EQ(b.steps, a.steps);
  EXPECT_EQ(b.devices, a.devices);
  EXPECT_EQ(b.host_processes, a.host_processes);
  EXPECT_EQ(b.ranks, a.ranks);
  EXPECT_EQ(b.communication_ops, a.communication_ops);
  EXPECT_EQ(b.dropped_records, a.dropped_records);
  // Step records come back as step records (the writer's "Step record" argument), not as
  // torch's ProfilerStep#N record_function ranges, which are operators.
  EXPECT_EQ(a.step_source, analysis::StepSource::kStepRecords);
  EXPECT_EQ(b.step_source, analysis::StepSource::kStepRecords);
  EXPECT_EQ(imported_.recorded_steps.step, raw_.recorded_steps.step);
  ASSERT_EQ(imported_set_.steps.steps.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(imported_set_.steps.steps[i].step, raw_set_.steps.steps[i].step);
    EXPECT_EQ(imported_set_.steps.steps[i].begin_ns, raw_set_.steps.steps[i].begin_ns);
    EXPECT_EQ(imported_set_.steps.steps[i].end_ns, raw_set_.steps.steps[i].end_ns);
  }

  // Overlap (msprof) and the step breakdown.
  ASSERT_EQ(imported_set_.overlap.scopes.size(), raw_set_.overlap.scopes.size());
  for (size_t s = 0; s < raw_set_.overlap.scopes.size(); ++s) {
    const analysis::OverlapScope& x = raw_set_.overlap.scopes[s];
    const analysis::OverlapScope& y = imported_set_.overlap.scopes[s];
    EXPECT_EQ(y.device_id, x.device_id);
    EXPECT_EQ(analysis::TotalLength(y.computing), analysis::TotalLength(x.computing));
    EXPECT_EQ(analysis::TotalLength(y.communication), analysis::TotalLength(x.communication));
    EXPECT_EQ(y.first_ns, x.first_ns);
    EXPECT_EQ(y.last_ns, x.last_ns);
  }
  const auto& raw_trace = raw_set_.step_breakdown.trace;
  const auto& imported_trace = imported_set_.step_breakdown.trace;
  ASSERT_EQ(imported_trace.size(), raw_trace.size());
  for (size_t i = 0; i < raw_trace.size(); ++i) {
    EXPECT_EQ(imported_trace[i].step, raw_trace[i].step);
    EXPECT_EQ(imported_trace[i].iteration_time_ns(), raw_trace[i].iteration_time_ns());
  }

  // HTA's figures.
  const analysis::KernelBreakdownResult& x = raw_set_.kernel_breakdown;
  const analysis::KernelBreakdownResult& y = imported_set_.kernel_breakdown;
  EXPECT_EQ(y.source, x.source);
  ASSERT_EQ(y.temporal.size(), x.temporal.size());
  for (size_t i = 0; i < x.temporal.size(); ++i) {
    EXPECT_EQ(y.temporal[i].span_ns, x.temporal[i].span_ns);
    EXPECT_EQ(y.temporal[i].idle_ns, x.temporal[i].idle_ns);
    EXPECT_EQ(y.temporal[i].compute_ns, x.temporal[i].compute_ns);
    EXPECT_EQ(y.temporal[i].non_compute_ns, x.temporal[i].non_compute_ns);
  }
  ASSERT_EQ(y.type_time.size(), x.type_time.size());
  for (size_t i = 0; i < x.type_time.size(); ++i) {
    EXPECT_EQ(y.type_time[i].label, x.type_time[i].label);
    EXPECT_EQ(y.type_time[i].time_ns, x.type_time[i].time_ns);
  }
  ASSERT_EQ(y.top_kernels.size(), x.top_kernels.size());
  for (size_t i = 0; i < x.top_kernels.size(); ++i) {
    EXPECT_EQ(y.top_kernels[i].name, x.top_kernels[i].name);
    EXPECT_EQ(y.top_kernels[i].total_ns, x.top_kernels[i].total_ns);
  }
  EXPECT_EQ(y.has_launch_flows, x.has_launch_flows);
  EXPECT_EQ(y.launches.launches, x.launches.launches);
  EXPECT_EQ(y.launches.total_launch_delay_ns, x.launches.total_launch_delay_ns);
  EXPECT_EQ(y.launches.short_kernels, x.launches.short_kernels);
  EXPECT_EQ(y.launches.launch_delay_outliers, x.launches.launch_delay_outliers);
  ASSERT_EQ(imported_set_.idle_time.lanes.size(), raw_set_.idle_time.lanes.size());
  for (size_t i = 0; i < raw_set_.idle_time.lanes.size(); ++i) {
    const analysis::IdleTimeRow& p = raw_set_.idle_time.lanes[i];
    const analysis::IdleTimeRow& q = imported_set_.idle_time.lanes[i];
    EXPECT_EQ(q.busy_ns, p.busy_ns);
    EXPECT_EQ(q.host_wait_ns, p.host_wait_ns);
    EXPECT_EQ(q.kernel_wait_ns, p.kernel_wait_ns);
    EXPECT_EQ(q.other_ns, p.other_ns);
  }
  EXPECT_EQ(imported_set_.communication.ops.size(), raw_set_.communication.ops.size());

  // The memory analysis over the allocator events.
  ASSERT_GT(raw_set_.memory.pools.size(), 0u);
  ASSERT_EQ(imported_set_.memory.pools.size(), raw_set_.memory.pools.size());
  for (size_t i = 0; i < raw_set_.memory.pools.size(); ++i) {
    const analysis::MemoryPool& p = raw_set_.memory.pools[i];
    const analysis::MemoryPool& q = imported_set_.memory.pools[i];
    EXPECT_EQ(q.name, p.name);
    EXPECT_EQ(q.samples.size(), p.samples.size());
    EXPECT_EQ(q.peak_allocated, p.peak_allocated);
    EXPECT_EQ(q.peak_allocated_ts, p.peak_allocated_ts);
    EXPECT_EQ(q.peak_reserved, p.peak_reserved);
  }
  ASSERT_EQ(imported_set_.memory.operator_usage.size(), raw_set_.memory.operator_usage.size());
  for (size_t i = 0; i < raw_set_.memory.operator_usage.size(); ++i) {
    const uint32_t raw_slice = raw_set_.memory.operator_usage[i].slice;
    const uint32_t imported_slice = imported_set_.memory.operator_usage[i].slice;
    EXPECT_EQ(imported_.Str(imported_.slices.name[imported_slice]),
              raw_.Str(raw_.slices.name[raw_slice]));
    EXPECT_EQ(imported_.slices.ts[imported_slice], raw_.slices.ts[raw_slice]);
    EXPECT_EQ(imported_set_.memory.operator_usage[i].device_bytes,
              raw_set_.memory.operator_usage[i].device_bytes);
    EXPECT_EQ(imported_set_.memory.operator_usage[i].self_device_bytes,
              raw_set_.memory.operator_usage[i].self_device_bytes);
  }
}

}  // namespace
}  // namespace aiprof
