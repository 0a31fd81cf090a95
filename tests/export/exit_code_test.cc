#include "export/exit_code.h"

#include <gtest/gtest.h>

namespace aiprof {
namespace {

TEST(ExitCodeOfDirectories, EveryDirectoryDoneIsSuccess) {
  EXPECT_EQ(ExitCodeOfDirectories(false, false, 3), kExitOk);
}

TEST(ExitCodeOfDirectories, AnyFailureIsAFailure) {
  EXPECT_EQ(ExitCodeOfDirectories(true, false, 3), kExitFailure);
  EXPECT_EQ(ExitCodeOfDirectories(true, true, 0), kExitFailure);
}

TEST(ExitCodeOfDirectories, RefusedInputIsAUsageErrorOnlyWhenNothingWasDone) {
  EXPECT_EQ(ExitCodeOfDirectories(false, true, 0), kExitUsage);
  EXPECT_EQ(ExitCodeOfDirectories(false, true, 2), kExitFailure);
}

}  // namespace
}  // namespace aiprof
