#include "runtime/dynamic/wake_pipe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

namespace aiprof::dynamic {
namespace {

bool Readable(int fd) {
  pollfd entry = {fd, POLLIN, 0};
  return poll(&entry, 1, 0) == 1 && (entry.revents & POLLIN) != 0;
}

TEST(WakePipe, WakeMakesItReadableAndDrainEmptiesIt) {
  WakePipe pipe;
  ASSERT_TRUE(pipe.Open());
  EXPECT_FALSE(Readable(pipe.read_fd()));
  EXPECT_TRUE(pipe.Wake());
  EXPECT_TRUE(pipe.Wake());
  EXPECT_TRUE(Readable(pipe.read_fd()));
  pipe.Drain(POLLIN);
  EXPECT_FALSE(Readable(pipe.read_fd()));
  pipe.Close();
}

// The program closed the read end and its next file took the number: Drain leaves that
// file alone and opens a new pipe, which a later Wake reaches.
TEST(WakePipe, APipeTheProgramTookIsReplaced) {
  WakePipe pipe;
  ASSERT_TRUE(pipe.Open());
  const int taken = pipe.read_fd();
  ASSERT_EQ(close(taken), 0);
  const int program_file = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_EQ(program_file, taken);
  pipe.Drain(POLLIN);
  EXPECT_NE(pipe.read_fd(), -1);
  EXPECT_TRUE(pipe.Wake());
  EXPECT_TRUE(Readable(pipe.read_fd()));
  EXPECT_NE(fcntl(program_file, F_GETFD), -1);  // still open: not ours to close
  pipe.Close();
  EXPECT_NE(fcntl(program_file, F_GETFD), -1);
  close(program_file);
}

}  // namespace
}  // namespace aiprof::dynamic
