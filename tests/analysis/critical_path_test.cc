// The critical path (analysis/critical_path/) on hand-built models with known answers: one
// thread, a DataLoader worker process handing over a batch, a kernel launched and waited for,
// a sync that waits for an idle device, two streams joined by a device sync (and a tie), two
// streams ordered by a CUDA event (cudaStreamWaitEvent, cudaEventSynchronize), a collective
// gated by a late rank, host work overlapping device work; every attribution sums to the
// step, every projection is re-solved on the graph.
#include "analysis/critical_path/critical_path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/analysis_set.h"
#include "analysis/critical_path/graph_builder.h"
#include "analysis/critical_path/path_solver.h"
#include "analysis/critical_path/run_index.h"
#include "analysis/hand_built_model.h"
#include "model/importer.h"
#include "model/nesting.h"

namespace aiprof::analysis {
namespace {

using testing::HandBuiltModel;

const model::Model& Finish(HandBuiltModel& b) {
  model::ResolveNesting(b.mutable_model());
  return b.model();
}

int64_t Of(const CategoryTimes& times, PathCategory category) {
  return times[category];
}

int64_t Projected(const CriticalPathResult& r, size_t step, WhatIfKind kind) {
  for (size_t i = 0; i < r.what_ifs.size(); ++i) {
    if (r.what_ifs[i].spec.kind == kind) return r.steps[step].projected_ns[i];
  }
  ADD_FAILURE() << "no projection " << WhatIfKindKey(kind);
  return -1;
}

// Every attribution adds up to its step; the graph reproduces the recording.
void ExpectConsistent(const model::Model& m, const CriticalPathResult& r) {
  for (const CriticalPathStep& step : r.steps) {
    EXPECT_EQ(step.attribution.total(), step.duration_ns()) << "step " << step.step;
    int64_t segments = 0;
    for (uint32_t i = step.first_segment; i < step.first_segment + step.segment_count; ++i) {
      const CriticalPathSegment s = r.Segment(m, step, i);
      EXPECT_GT(s.end_ns, s.begin_ns);
      segments += s.end_ns - s.begin_ns;
    }
    EXPECT_EQ(segments, step.duration_ns());
    for (uint32_t i = step.first_rank; i < step.first_rank + step.rank_count; ++i) {
      EXPECT_EQ(r.ranks[i].own.total(), r.ranks[i].end_ns - r.ranks[i].begin_ns);
    }
  }
}

void AddFlow(HandBuiltModel& b, uint32_t from, uint32_t to) {
  model::FlowTable& f = b.mutable_model().flows;
  f.id.push_back(f.size() + 1);
  f.from_slice.push_back(from);
  f.to_slice.push_back(to);
  f.category.push_back(b.mutable_model().strings.Intern("ac2g"));
}

// One thread: two operators in a step of 100.
TEST(CriticalPathTest, OneThreadIsItsOwnPath) {
  HandBuiltModel b;
  const uint32_t t = b.AddProcess(10);
  b.AddStep(t, 1, 0, 100);
  b.AddSlice(t, 10, 40, "aten::mm", "cpu_op");
  b.AddSlice(t, 50, 90, "aten::add", "cpu_op");
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);
  ExpectConsistent(b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kCompute), 70);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kIdle), 30);
  // The top operator (aten::add, 40) 50% faster: 20 saved; nothing else applies.
  EXPECT_EQ(r.what_ifs[1].spec.name, "aten::add");
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kOperatorFaster), 80);
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kDataLoadingFree), 100);
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kCommunicationOverlapped), 100);
  EXPECT_FALSE(r.Find(WhatIfKind::kRankAtMedian)->applicable);
  // On the path: no slack; agrees with the step breakdown (Computing 70).
  const model::Model& m = b.model();
  for (uint32_t row = 0; row < m.slices.size(); ++row) EXPECT_EQ(r.slice_slack[row], 0);
  EXPECT_EQ(set.step_breakdown.rows[0].computing_ns, 70);
}

// The solver one step at a time (what the UI's server runs) gives each step as
// ComputeCriticalPath gives it among all, and the steps are counted without solving any:
// with steps, and without (each host process's span is one "step").
TEST(CriticalPathTest, StepByStepIsTheWholeAndTheCountSolvesNothing) {
  for (const bool with_steps : {true, false}) {
    HandBuiltModel b;
    const uint32_t t = b.AddProcess(10);
    const uint32_t other = b.AddProcess(20);
    for (int64_t s = 0; s < 3; ++s) {
      if (with_steps) b.AddStep(t, static_cast<uint64_t>(s + 1), s * 100, s * 100 + 90);
      b.AddSlice(t, s * 100 + 10, s * 100 + 40, "aten::mm", "cpu_op");
      b.AddSlice(t, s * 100 + 50, s * 100 + 80, "aten::add", "cpu_op");
      b.AddSlice(other, s * 100 + 5, s * 100 + 60, "aten::relu", "cpu_op");
    }
    const model::Model& m = Finish(b);
    const AnalysisSet set = RunAnalyses(m, {std::nullopt, true});
    const CriticalPathResult& whole = set.critical_path;
    EXPECT_EQ(whole.whole_run, !with_steps);
    ASSERT_EQ(whole.steps.size(), with_steps ? 3u : 2u);
    EXPECT_EQ(CountCriticalPathSteps(m, set), whole.steps.size());
    CriticalPathSolver solver(m, set);
    size_t solved = 0;
    for (size_t i = 0; i < solver.size(); ++i) {
      if (!solver.HasPath(i)) continue;
      CriticalPathResult alone = solver.EmptyResult(false);
      ASSERT_TRUE(solver.Solve(i, &alone));
      ASSERT_LT(solved, whole.steps.size());
      const CriticalPathStep& a = alone.steps.front();
      const CriticalPathStep& w = whole.steps[solved++];
      EXPECT_EQ(a.begin_ns, w.begin_ns);
      EXPECT_EQ(a.end_ns, w.end_ns);
      EXPECT_EQ(a.attribution.ns, w.attribution.ns);
      EXPECT_EQ(a.projected_ns, w.projected_ns);
      ASSERT_EQ(a.segment_count, w.segment_count);
      for (uint32_t k = 0; k < a.segment_count; ++k) {
        const CriticalPathSegment x = alone.Segment(m, a, a.first_segment + k);
        const CriticalPathSegment y = whole.Segment(m, w, w.first_segment + k);
        EXPECT_EQ(x.begin_ns, y.begin_ns);
        EXPECT_EQ(x.end_ns, y.end_ns);
        EXPECT_EQ(x.category, y.category);
        EXPECT_EQ(x.slice, y.slice);
      }
      EXPECT_EQ(solver.Project(i, {whole.what_ifs[1].spec}), w.projected_ns[1]);
    }
    EXPECT_EQ(solved, whole.steps.size());
  }
}

// A DataLoader worker (another process, the step process's child) produces the batch the
// step waits for: the path runs through the worker; making loading free removes the wait.
HandBuiltModel LoaderBound() {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(10);
  b.mutable_model().processes.metadata[0] = R"({"pid":10,"ppid":1})";
  b.AddStep(main, 1, 0, 100);
  b.AddSlice(main, 0, 60, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
             "user_annotation");
  b.AddSlice(main, 60, 100, "aten::mm", "cpu_op");
  const uint32_t worker = b.AddProcess(11);
  b.mutable_model().processes.metadata[1] = R"({"pid":11,"ppid":10})";
  b.AddSlice(worker, 5, 30, "aten::randn", "cpu_op");
  b.AddSlice(worker, 40, 55, "aten::stack", "cpu_op");
  return b;
}

TEST(CriticalPathTest, DataLoaderHandOffRunsThroughTheWorker) {
  HandBuiltModel b = LoaderBound();
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);
  ExpectConsistent(b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kDataLoading), 60);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kCompute), 40);
  bool through_worker = false;
  for (uint32_t i = 0; i < r.segments.size(); ++i) {
    const CriticalPathSegment s = r.Segment(b.model(), r.steps[0], i);
    through_worker |= s.thread == 1 && s.slice != model::kNoRow &&
                      b.model().Str(b.model().slices.name[s.slice]) == "aten::stack";
  }
  EXPECT_TRUE(through_worker);
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kDataLoadingFree), 40);
  // The data preparation's wait is the wait range: the path's data loading holds it.
  EXPECT_EQ(set.data_preparation.steps[0].wait_ns, 60);
}

// Without the worker's data, the wait itself is the data loading.
TEST(CriticalPathTest, WaitWithoutItsLoaderIsDataLoading) {
  HandBuiltModel b;
  const uint32_t main = b.AddProcess(10);
  b.AddStep(main, 1, 0, 100);
  b.AddSlice(main, 0, 60, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
             "user_annotation");
  b.AddSlice(main, 10, 50, "aten::randn", "cpu_op");  // loading inside the wait
  b.AddSlice(main, 60, 100, "aten::mm", "cpu_op");
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kDataLoading), 60);
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kDataLoadingFree), 40);
}

// A CUDA step: a launch at 10 (call [10, 15)), the kernel [20, 80) on a stream, a device
// sync [20, 85), then 15 of nothing.
HandBuiltModel LaunchAndSync(int64_t kernel_begin, int64_t kernel_end, int64_t sync_begin,
                             int64_t sync_end) {
  HandBuiltModel b;
  const uint32_t host = b.AddProcess(10);
  b.AddStep(host, 1, 0, 100);
  const uint32_t launch = b.AddSlice(host, 10, 15, "cudaLaunchKernel", "cuda_runtime");
  b.AddSlice(host, sync_begin, sync_end, "cudaDeviceSynchronize", "cuda_runtime");
  const uint32_t stream = b.AddProcess(0, 0);
  const uint32_t kernel = b.AddSlice(stream, kernel_begin, kernel_end, "gemm", "kernel");
  model::FlowTable& f = b.mutable_model().flows;
  f.id.push_back(1);
  f.from_slice.push_back(launch);
  f.to_slice.push_back(kernel);
  f.category.push_back(b.mutable_model().strings.Intern("ac2g"));
  return b;
}

TEST(CriticalPathTest, SyncWaitsForTheKernelItLaunched) {
  HandBuiltModel b = LaunchAndSync(20, 80, 20, 85);
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);
  ExpectConsistent(b.model(), r);
  const CategoryTimes& a = r.steps[0].attribution;
  EXPECT_EQ(Of(a, PathCategory::kIdle), 25);          // 10 before the launch, 15 after
  EXPECT_EQ(Of(a, PathCategory::kHostOverhead), 10);  // launch call start → kernel start
  EXPECT_EQ(Of(a, PathCategory::kCompute), 60);
  EXPECT_EQ(Of(a, PathCategory::kSync), 5);  // the sync's return after the kernel
  // The kernel 50% faster: it ends at 50, the sync at 55, the step at 70.
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kOperatorFaster), 70);
  std::vector<int64_t> compute_faster = ProjectSteps(
      b.model(), set, {{WhatIfKind::kCategoryFaster, "", PathCategory::kCompute, 0.5}});
  EXPECT_EQ(compute_faster, std::vector<int64_t>{70});
}

TEST(CriticalPathTest, SyncOnAnIdleDeviceIsHostTime) {
  HandBuiltModel b = LaunchAndSync(20, 30, 50, 60);
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(b.model(), r);
  const CategoryTimes& a = r.steps[0].attribution;
  EXPECT_EQ(Of(a, PathCategory::kSync), 10);
  EXPECT_EQ(Of(a, PathCategory::kCompute), 0);
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kOperatorFaster), 100);  // the kernel is off the path
  // The kernel (row 3) could end 20 later: the sync began at 50.
  EXPECT_EQ(r.slice_slack[3], 20);
}

// Two streams; a device sync waits for both: the later stream is on the path; made faster,
// the other one takes over (the join re-solved, not a subtraction).
TEST(CriticalPathTest, MultiStreamJoinTakesTheLaterStream) {
  HandBuiltModel b;
  const uint32_t host = b.AddProcess(10);
  b.AddStep(host, 1, 0, 100);
  const uint32_t launch_a = b.AddSlice(host, 2, 4, "cudaLaunchKernel", "cuda_runtime");
  const uint32_t launch_b = b.AddSlice(host, 5, 7, "cudaLaunchKernel", "cuda_runtime");
  b.AddSlice(host, 8, 95, "cudaDeviceSynchronize", "cuda_runtime");
  const uint32_t stream_a = b.AddProcess(0, 0);
  const uint32_t stream_b = b.AddThread(1, 7);
  const uint32_t ka = b.AddSlice(stream_a, 10, 60, "gemm_a", "kernel");
  const uint32_t kb = b.AddSlice(stream_b, 10, 90, "gemm_b", "kernel");
  model::FlowTable& f = b.mutable_model().flows;
  for (auto [from, to] : {std::pair{launch_a, ka}, std::pair{launch_b, kb}}) {
    f.id.push_back(f.size() + 1);
    f.from_slice.push_back(from);
    f.to_slice.push_back(to);
    f.category.push_back(b.mutable_model().strings.Intern("ac2g"));
  }
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kCompute), 80);  // gemm_b
  EXPECT_EQ(r.steps[0].critical_thread, stream_b);
  // gemm_b 50% faster: it ends at 50, but gemm_a ends at 60: the sync returns at 65.
  std::vector<int64_t> faster = ProjectSteps(
      b.model(), set, {{WhatIfKind::kOperatorFaster, "gemm_b", PathCategory::kCompute, 0.5}});
  EXPECT_EQ(faster, std::vector<int64_t>{70});
  EXPECT_EQ(r.slice_slack[ka], 30);  // gemm_a could end 30 later
  // The near-critical work, least slack first: gemm_a, then gemm_b's launch call (the path
  // runs from its start to gemm_b, not through its time).
  ASSERT_EQ(r.steps[0].near_count, 2u);
  const NearCriticalSlice& near = r.near_critical[r.steps[0].first_near];
  EXPECT_EQ(near.slice, ka);
  EXPECT_EQ(near.slack_ns, 30);
  const NearCriticalSlice& next = r.near_critical[r.steps[0].first_near + 1];
  EXPECT_EQ(next.slice, launch_b);
  EXPECT_GT(next.slack_ns, near.slack_ns);
  EXPECT_EQ(near.category, PathCategory::kCompute);
}

// A tie: both streams end at 90. One of them is on the path; the figures are the same.
TEST(CriticalPathTest, TiedInputsGiveOnePath) {
  HandBuiltModel b;
  const uint32_t host = b.AddProcess(10);
  b.AddStep(host, 1, 0, 100);
  b.AddSlice(host, 8, 95, "cudaDeviceSynchronize", "cuda_runtime");
  const uint32_t stream_a = b.AddProcess(0, 0);
  const uint32_t stream_b = b.AddThread(1, 7);
  const uint32_t launch = b.AddSlice(host, 2, 4, "cudaLaunchKernel", "cuda_runtime");
  const uint32_t ka = b.AddSlice(stream_a, 10, 90, "gemm", "kernel");
  const uint32_t kb = b.AddSlice(stream_b, 10, 90, "gemm", "kernel");
  model::FlowTable& f = b.mutable_model().flows;
  for (uint32_t to : {ka, kb}) {
    f.id.push_back(f.size() + 1);
    f.from_slice.push_back(launch);
    f.to_slice.push_back(to);
    f.category.push_back(b.mutable_model().strings.Intern("ac2g"));
  }
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kCompute), 80);
  EXPECT_EQ(r.steps[0].critical_thread, stream_a);  // the first-listed input wins a tie
  EXPECT_EQ(r.slice_slack[ka], 0);
  EXPECT_EQ(r.slice_slack[kb], 0);  // both are critical
  // Only both faster makes the step faster.
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kOperatorFaster), 60);
}

// Two ranks: rank 1 computes 70 before an all_reduce that rank 0 entered at 20; both leave
// at 80, then compute 20. Rank 0 waits 50 on a peer; the job's path runs through rank 1.
HandBuiltModel LateRank() {
  HandBuiltModel b;
  const int64_t arrive[] = {20, 70};
  for (int32_t rank = 0; rank < 2; ++rank) {
    const uint32_t t = b.AddProcess(100 + rank, -1, rank);
    b.mutable_model().processes.metadata[rank] = R"({"hostname":"node1","rank":)" +
                                                 std::to_string(rank) +
                                                 R"(,"world_size":2,"local_world_size":2})";
    b.AddStep(t, 1, 0, 100);
    b.AddSlice(t, 0, arrive[rank], "aten::mm", "cpu_op");
    b.AddSlice(t, arrive[rank], 80, "gloo:all_reduce", "cpu_op");
    b.AddSlice(t, 80, 100, "aten::add", "cpu_op");
  }
  return b;
}

TEST(CriticalPathTest, CollectiveGatedByTheLateRank) {
  HandBuiltModel b = LateRank();
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);  // one job step of two ranks
  ExpectConsistent(b.model(), r);
  const CriticalPathStep& step = r.steps[0];
  EXPECT_EQ(step.critical_rank, 1);
  EXPECT_EQ(Of(step.attribution, PathCategory::kCompute), 90);      // rank 1's 70 + 20 after
  EXPECT_EQ(Of(step.attribution, PathCategory::kCommTransit), 10);  // after the last arrival
  EXPECT_EQ(Of(step.attribution, PathCategory::kCommWait), 0);
  ASSERT_EQ(step.rank_count, 2u);
  const CriticalPathRank& rank0 = r.ranks[step.first_rank];
  EXPECT_EQ(rank0.rank, 0);
  EXPECT_EQ(Of(rank0.own, PathCategory::kCommWait), 50);  // = the communication analysis's wait
  EXPECT_EQ(Of(rank0.own, PathCategory::kCommTransit), 10);
  EXPECT_EQ(Of(rank0.own, PathCategory::kCompute), 40);
  EXPECT_EQ(set.communication_analysis.ops.front().time.wait_ns, 50);
  // Rank 1 (busy 90) at the median (65): it arrives at 70 × 65/90 ≈ 50.6, the all_reduce
  // ends 10 later, rank 0 computes 20 more.
  EXPECT_NEAR(static_cast<double>(Projected(r, 0, WhatIfKind::kRankAtMedian)), 80.6, 0.6);
  // Overlapping the communication removes transit, not rank 1's lateness.
  EXPECT_EQ(Projected(r, 0, WhatIfKind::kCommunicationOverlapped), 90);
}

// Host work longer than the device work it overlaps: the path stays on the host.
TEST(CriticalPathTest, OverlappedDeviceWorkIsOffThePath) {
  HandBuiltModel b = LaunchAndSync(20, 30, 20, 85);
  b.AddSlice(0, 16, 19, "aten::add", "cpu_op");
  const AnalysisSet set = RunAnalyses(Finish(b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(b.model(), r);
  // The sync began at 20 and the kernel ended at 30: the device gated it from 30; after, 55
  // of the sync's own time (nothing recorded on the device) is synchronisation.
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kSync), 55);
}

// Two streams of device 0 (stream 0 and stream 7) and a host thread; gemm_a [10, 60) on stream
// 0 is launched at 2, then an event is recorded on stream 0 (cudaEventRecord, correlation 42).
// `wait_args` are the CUDA sync record's arguments naming that event, as Kineto writes them.
struct TwoStreams {
  HandBuiltModel b;
  uint32_t host = 0, stream_a = 0, stream_b = 0, gemm_a = 0;
};
TwoStreams EventRecordedAfterGemmA() {
  TwoStreams t;
  t.host = t.b.AddProcess(10);
  t.b.AddStep(t.host, 1, 0, 100);
  const uint32_t launch_a = t.b.AddSlice(t.host, 2, 4, "cudaLaunchKernel", "cuda_runtime");
  const uint32_t record = t.b.AddSlice(t.host, 5, 6, "cudaEventRecord", "cuda_runtime");
  model::Model& m = t.b.mutable_model();
  m.slices.args[record] = model::ArgSetBuilder(&m).Int("correlation", 42).Commit();
  t.stream_a = t.b.AddProcess(0, 0);
  t.stream_b = t.b.AddThread(1, 7);
  t.gemm_a = t.b.AddSlice(t.stream_a, 10, 60, "gemm_a", "kernel");
  AddFlow(t.b, launch_a, t.gemm_a);
  return t;
}
uint32_t EventSyncRecord(TwoStreams& t, uint32_t stream, int64_t ts, int64_t end,
                         std::string_view kind) {
  const uint32_t sync = t.b.AddSlice(stream, ts, end, kind, "cuda_sync");
  model::Model& m = t.b.mutable_model();
  model::ArgSetBuilder args(&m);
  if (kind == "Event Sync") {
    args.UInt("cuda_sync_kind", 1);  // aiprof's importer writes the number
  } else {
    args.String("cuda_sync_kind", kind);  // Kineto the name
  }
  m.slices.args[sync] =
      args.Int("wait_on_stream", 0).Int("wait_on_cuda_event_record_corr_id", 42).Commit();
  return sync;
}

// Stream 7 waits on the event (cudaStreamWaitEvent at 6) before gemm_b, launched at 8 but
// held back until gemm_a ends at 60; a device sync [10, 95) waits for both streams. The path
// runs gemm_a → gemm_b (80 of compute); without the event's edge gemm_b would look gated by
// its launch (52 of host overhead) and gemm_a would be off the path.
TEST(CriticalPathTest, StreamWaitEventOrdersTwoStreams) {
  TwoStreams t = EventRecordedAfterGemmA();
  t.b.AddSlice(t.host, 6, 7, "cudaStreamWaitEvent", "cuda_runtime");
  EventSyncRecord(t, t.stream_b, 6, 7, "Stream Wait Event");
  const uint32_t launch_b = t.b.AddSlice(t.host, 8, 9, "cudaLaunchKernel", "cuda_runtime");
  t.b.AddSlice(t.host, 10, 95, "cudaDeviceSynchronize", "cuda_runtime");
  const uint32_t gemm_b = t.b.AddSlice(t.stream_b, 60, 90, "gemm_b", "kernel");
  AddFlow(t.b, launch_b, gemm_b);
  const AnalysisSet set = RunAnalyses(Finish(t.b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ASSERT_EQ(r.steps.size(), 1u);
  ExpectConsistent(t.b.model(), r);
  const CategoryTimes& a = r.steps[0].attribution;
  EXPECT_EQ(Of(a, PathCategory::kCompute), 80);
  EXPECT_EQ(Of(a, PathCategory::kHostOverhead), 8);  // gemm_a's launch at 2 → its start at 10
  EXPECT_EQ(Of(a, PathCategory::kSync), 5);
  EXPECT_EQ(Of(a, PathCategory::kIdle), 7);
  EXPECT_EQ(r.slice_slack[t.gemm_a], 0);
  // gemm_a 50% faster: it ends at 35, gemm_b runs [35, 65), the sync returns at 70.
  EXPECT_EQ(ProjectSteps(t.b.model(), set,
                         {{WhatIfKind::kOperatorFaster, "gemm_a", PathCategory::kCompute, 0.5}}),
            std::vector<int64_t>{75});
}

// The host waits for the event (cudaEventSynchronize [9, 62)), not for stream 7, whose gemm_b
// [10, 61) runs beside gemm_a: the sync returns 2 after gemm_a, so gemm_a 50% faster saves 25
// (had the sync waited for every stream, gemm_b would gate it and the saving would be 0).
TEST(CriticalPathTest, EventSynchronizeWaitsForTheEventsStreamOnly) {
  TwoStreams t = EventRecordedAfterGemmA();
  const uint32_t launch_b = t.b.AddSlice(t.host, 7, 8, "cudaLaunchKernel", "cuda_runtime");
  const uint32_t call = t.b.AddSlice(t.host, 9, 62, "cudaEventSynchronize", "cuda_runtime");
  AddFlow(t.b, call, EventSyncRecord(t, t.stream_a, 9, 62, "Event Sync"));
  const uint32_t gemm_b = t.b.AddSlice(t.stream_b, 10, 61, "gemm_b", "kernel");
  AddFlow(t.b, launch_b, gemm_b);
  const AnalysisSet set = RunAnalyses(Finish(t.b), {std::nullopt, true});
  const CriticalPathResult& r = set.critical_path;
  ExpectConsistent(t.b.model(), r);
  EXPECT_EQ(Of(r.steps[0].attribution, PathCategory::kCompute), 50);  // gemm_a
  EXPECT_TRUE(std::isinf(r.slice_slack[gemm_b]));                     // nothing waits for it
  EXPECT_EQ(ProjectSteps(t.b.model(), set,
                         {{WhatIfKind::kOperatorFaster, "gemm_a", PathCategory::kCompute, 0.5}}),
            std::vector<int64_t>{75});
}

}  // namespace
}  // namespace aiprof::analysis
