// The timer mode's sample queue (src/sources/cpu_sampling/timer_sample_queue.h), driven
// the way the SIGPROF handler (claim, fill, publish) and the writer thread (drain) use it.
// The queue is process-wide, so every test starts by draining what an earlier one left.
#include "sources/cpu_sampling/timer_sample_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace aiprof::cpu_sampling {
namespace {

std::vector<uint32_t> DrainTids(std::vector<bool>* had_python = nullptr) {
  std::vector<uint32_t> tids;
  DrainTimerSamples([&](const TimerSample& sample, const TimerSamplePython* python) {
    tids.push_back(sample.tid);
    if (had_python != nullptr) had_python->push_back(python != nullptr);
  });
  return tids;
}

TimerSample* ClaimAndFill(uint32_t tid, bool publish = true) {
  TimerSamplePython* python = nullptr;
  TimerSample* sample = ClaimTimerSample(&python);
  if (sample == nullptr) return nullptr;
  sample->tid = tid;
  if (publish) PublishTimerSample(sample);
  return sample;
}

TEST(TimerSampleQueue, DrainEmitsPublishedSlotsOnceAndLeavesOnesBeingWritten) {
  std::string why;
  ASSERT_TRUE(MapTimerSampleQueue(false, &why)) << why;
  DrainTids();
  ASSERT_NE(ClaimAndFill(1), nullptr);
  TimerSample* in_flight = ClaimAndFill(2, false);
  ASSERT_NE(in_flight, nullptr);
  ASSERT_NE(ClaimAndFill(3), nullptr);
  EXPECT_EQ(DrainTids(), (std::vector<uint32_t>{1, 3}));
  EXPECT_TRUE(DrainTids().empty());
  // The claims restarted at the first slot; the second one, still being written, is
  // skipped: the claim after the first lands on the third.
  TimerSample* first = ClaimAndFill(4);
  TimerSample* second = ClaimAndFill(5);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(first + 1, in_flight);
  EXPECT_EQ(second, in_flight + 1);
  PublishTimerSample(in_flight);
  EXPECT_EQ(DrainTids(), (std::vector<uint32_t>{4, 2, 5}));
}

TEST(TimerSampleQueue, SlotsInUseStayWithinOneIntervalsSamples) {
  std::string why;
  ASSERT_TRUE(MapTimerSampleQueue(false, &why)) << why;
  DrainTids();
  uint32_t high_water_before = timer_queue_detail::HighWater();
  for (int interval = 0; interval < 20; ++interval) {
    for (uint32_t i = 0; i < 100; ++i) ASSERT_NE(ClaimAndFill(i), nullptr);
    EXPECT_EQ(DrainTids().size(), 100u);
  }
  // 2,000 samples went through, yet only the first ~100 slots were ever touched.
  EXPECT_LE(timer_queue_detail::HighWater(), std::max(high_water_before, 100u));
}

TEST(TimerSampleQueue, AFullQueueRefusesClaimsUntilDrained) {
  std::string why;
  ASSERT_TRUE(MapTimerSampleQueue(false, &why)) << why;
  DrainTids();
  uint32_t claimed = 0;
  while (ClaimAndFill(claimed) != nullptr) ++claimed;
  EXPECT_EQ(claimed, 4096u);
  EXPECT_EQ(ClaimAndFill(0), nullptr);
  EXPECT_EQ(DrainTids().size(), 4096u);
  EXPECT_NE(ClaimAndFill(7), nullptr);
  EXPECT_EQ(DrainTids(), (std::vector<uint32_t>{7}));
}

// Runs last in this file's order: once mapped, the Python arrays stay.
TEST(TimerSampleQueue, PythonArraysOnlyOnceAsked) {
  std::string why;
  ASSERT_TRUE(MapTimerSampleQueue(false, &why)) << why;
  DrainTids();
  TimerSamplePython* python = nullptr;
  TimerSample* sample = ClaimTimerSample(&python);
  ASSERT_NE(sample, nullptr);
  EXPECT_EQ(python, nullptr);
  PublishTimerSample(sample);
  DrainTids();
  ASSERT_TRUE(MapTimerSampleQueue(true, &why)) << why;
  sample = ClaimTimerSample(&python);
  ASSERT_NE(sample, nullptr);
  ASSERT_NE(python, nullptr);
  python->code[0] = 42;
  PublishTimerSample(sample);
  std::vector<bool> had_python;
  DrainTids(&had_python);
  EXPECT_EQ(had_python, (std::vector<bool>{true}));
}

}  // namespace
}  // namespace aiprof::cpu_sampling
