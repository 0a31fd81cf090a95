#include "model/ascii_case.h"

#include <gtest/gtest.h>

namespace aiprof::model {
namespace {

TEST(AsciiCase, FoldsOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLowered("ProfilerStep#3"), "profilerstep#3");
  // UTF-8 bytes (here "É") pass through unchanged, whatever the locale.
  EXPECT_EQ(AsciiLowered("\xC3\x89T\xC3\xA9"), "\xC3\x89t\xC3\xA9");
  EXPECT_EQ(AsciiLower('@'), '@');
  EXPECT_EQ(AsciiLower('['), '[');
}

TEST(AsciiCase, ContainsIgnoresCaseOnBothSides) {
  EXPECT_TRUE(ContainsNoCase("Optimizer.step#SGD.step", "optimizer"));
  EXPECT_TRUE(ContainsNoCase("autograd::engine::evaluate_function", "AUTOGRAD::ENGINE"));
  EXPECT_TRUE(ContainsNoCase("anything", ""));
  EXPECT_FALSE(ContainsNoCase("forwar", "forward"));
  EXPECT_FALSE(ContainsNoCase("", "x"));
}

TEST(AsciiCase, StartsWith) {
  EXPECT_TRUE(StartsWithNoCase("ProfilerStep#1", "profilerstep"));
  EXPECT_TRUE(StartsWithNoCase("abc", ""));
  EXPECT_FALSE(StartsWithNoCase("Pro", "profiler"));
  EXPECT_FALSE(StartsWithNoCase("xProfilerStep", "profilerstep"));
}

}  // namespace
}  // namespace aiprof::model
