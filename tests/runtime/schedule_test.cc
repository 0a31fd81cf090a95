// aiprof::Profiler: torch.profiler's schedule and transition table, and the windows it
// opens.
#include <gtest/gtest.h>

#include "aiprof/profiler.hpp"
#include "runtime/raw_data.h"

namespace aiprof::testing {
namespace {

using A = ProfilerAction;
using S = TraceStep;

std::vector<A> Actions(const Schedule& schedule, int steps) {
  std::vector<A> actions;
  for (int step = 0; step < steps; ++step) actions.push_back(schedule(step));
  return actions;
}

TEST(ScheduleTest, MatchesTorchProfilerSchedule) {
  // The example of torch.profiler's documentation.
  EXPECT_EQ(
      Actions(Schedule{.wait = 1, .warmup = 1, .active = 2, .repeat = 1}, 6),
      (std::vector<A>{A::kNone, A::kWarmup, A::kRecord, A::kRecordAndSave, A::kNone, A::kNone}));
  EXPECT_EQ(Actions(Schedule{.skip_first = 2, .wait = 1, .warmup = 0, .active = 1, .repeat = 2}, 8),
            (std::vector<A>{A::kNone, A::kNone, A::kNone, A::kRecordAndSave, A::kNone,
                            A::kRecordAndSave, A::kNone, A::kNone}));
  EXPECT_EQ(Actions(Schedule{.wait = 0, .warmup = 0, .active = 3}, 7),
            (std::vector<A>{A::kRecord, A::kRecord, A::kRecordAndSave, A::kRecord, A::kRecord,
                            A::kRecordAndSave, A::kRecord}));
  // skip_first_wait skips only the first wait: first warmup after 10 steps, not 30.
  Schedule skip{.skip_first = 10, .wait = 20, .warmup = 1, .active = 1, .skip_first_wait = 1};
  EXPECT_EQ(skip(9), A::kNone);
  EXPECT_EQ(skip(10), A::kWarmup);
  EXPECT_EQ(skip(11), A::kRecordAndSave);
  EXPECT_EQ(skip(12), A::kNone);
  Schedule normal = skip;
  normal.skip_first_wait = 0;
  EXPECT_EQ(normal(29), A::kNone);
  EXPECT_EQ(normal(30), A::kWarmup);
}

TEST(ScheduleTest, TransitionTableMatchesTorchProfiler) {
  EXPECT_EQ(TransitionSteps(A::kNone, A::kNone), std::vector<S>{});
  EXPECT_EQ(TransitionSteps(A::kNone, A::kWarmup), (std::vector<S>{S::kPrepare}));
  EXPECT_EQ(TransitionSteps(A::kNone, A::kRecord), (std::vector<S>{S::kPrepare, S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kNone, A::kRecordAndSave), (std::vector<S>{S::kPrepare, S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kWarmup, A::kNone), (std::vector<S>{S::kWarn, S::kStart, S::kStop}));
  EXPECT_EQ(TransitionSteps(A::kWarmup, A::kWarmup), std::vector<S>{});
  EXPECT_EQ(TransitionSteps(A::kWarmup, A::kRecord), (std::vector<S>{S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kWarmup, A::kRecordAndSave), (std::vector<S>{S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kRecord, A::kNone), (std::vector<S>{S::kWarn, S::kStop}));
  EXPECT_EQ(TransitionSteps(A::kRecord, A::kWarmup), (std::vector<S>{S::kWarn, S::kStop}));
  EXPECT_EQ(TransitionSteps(A::kRecord, A::kRecord), std::vector<S>{});
  EXPECT_EQ(TransitionSteps(A::kRecord, A::kRecordAndSave), std::vector<S>{});
  EXPECT_EQ(TransitionSteps(A::kRecordAndSave, A::kNone),
            (std::vector<S>{S::kStop, S::kTraceReady}));
  EXPECT_EQ(TransitionSteps(A::kRecordAndSave, A::kWarmup),
            (std::vector<S>{S::kStop, S::kTraceReady, S::kPrepare}));
  EXPECT_EQ(TransitionSteps(A::kRecordAndSave, A::kRecord),
            (std::vector<S>{S::kStop, S::kTraceReady, S::kPrepare, S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kRecordAndSave, A::kRecordAndSave),
            (std::vector<S>{S::kStop, S::kTraceReady, S::kPrepare, S::kStart}));
  EXPECT_EQ(TransitionSteps(A::kNone, std::nullopt), std::vector<S>{});
  EXPECT_EQ(TransitionSteps(A::kWarmup, std::nullopt), (std::vector<S>{S::kStart, S::kStop}));
  EXPECT_EQ(TransitionSteps(A::kRecord, std::nullopt), (std::vector<S>{S::kStop, S::kTraceReady}));
  EXPECT_EQ(TransitionSteps(A::kRecordAndSave, std::nullopt),
            (std::vector<S>{S::kStop, S::kTraceReady}));
}

TEST(ScheduleTest, ProfilerRecordsScheduledStepsAsWindows) {
  std::string output = MakeTempDir("profiler");
  std::vector<std::string> ready;
  {
    ProfilerOptions options;
    options.output = output;
    options.schedule = Schedule{.wait = 1, .warmup = 1, .active = 2, .repeat = 2};
    options.on_trace_ready = [&](const std::string& dir) { ready.push_back(dir); };
    Profiler profiler(options);
    ASSERT_TRUE(profiler.start());
    for (int step = 0; step < 10; ++step) profiler.step();
    profiler.stop();
  }
  ASSERT_EQ(ready.size(), 2u);
  std::vector<std::vector<uint32_t>> steps_per_trace;
  for (const std::string& dir : ready) {
    RawData data = LoadRawFile(RuntimeDataFile(dir));
    ASSERT_TRUE(data.opened) << dir;
    std::vector<uint32_t> begins, ends;
    for (const Record& record : data.records) {
      if (record.kind == static_cast<uint8_t>(format::RecordKind::kStepBegin)) {
        begins.push_back(record.arg);
      }
      if (record.kind == static_cast<uint8_t>(format::RecordKind::kStepEnd)) {
        ends.push_back(record.arg);
      }
    }
    EXPECT_EQ(begins, ends);
    steps_per_trace.push_back(begins);
  }
  EXPECT_EQ(steps_per_trace[0], (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(steps_per_trace[1], (std::vector<uint32_t>{6, 7}));
  EXPECT_EQ(ProfDirs(output).size(), 2u);
}

}  // namespace
}  // namespace aiprof::testing
