#include "sources/cuda/clock_mapper.h"

#include <gtest/gtest.h>

namespace aiprof::cuda {
namespace {

TEST(ClockMapper, IdentityWhenCuptiUsesTheProcessClock) {
  ClockMapper mapper;
  mapper.UseIdentity();
  EXPECT_EQ(mapper.Current().ToProcess(123456789), 123456789u);
}

TEST(ClockMapper, MapsThroughTheLineOfTwoReadings) {
  // A 3 GHz TSC process clock against CUPTI's ns clock, with an arbitrary offset.
  ClockMapper mapper;
  mapper.AddSample(1'000'000'000, 5'000'000'000);
  mapper.AddSample(1'001'000'000, 5'003'000'000);
  const ClockMapping mapping = mapper.Current();
  EXPECT_FALSE(mapping.identity);
  EXPECT_DOUBLE_EQ(mapping.process_ticks_per_cupti_ns, 3.0);
  EXPECT_EQ(mapping.ToProcess(1'001'000'000), 5'003'000'000u);
  EXPECT_EQ(mapping.ToProcess(1'002'000'000), 5'006'000'000u);
  EXPECT_EQ(mapping.ToProcess(1'000'500'000), 5'001'500'000u);  // before the anchor
  EXPECT_EQ(mapping.ToProcess(0), 0u);                          // "no timestamp" stays
}

TEST(ClockMapper, OneReadingKeepsUnitSlopeAndOffset) {
  ClockMapper mapper;
  mapper.AddSample(100, 1100);
  EXPECT_EQ(mapper.Current().ToProcess(150), 1150u);
}

}  // namespace
}  // namespace aiprof::cuda
