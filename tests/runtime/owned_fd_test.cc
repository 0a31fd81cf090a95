// Descriptors without a path adopted through a CloseWatch (runtime/owned_fd.h): a close of
// the program between a descriptor's creation and its registration leaves the number to the
// program. The program's close is what the interposed close() does (fd_hooks.cc): a
// ProgramCloseScope around the system call.
#include "runtime/owned_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <memory>
#include <thread>

namespace aiprof::runtime {
namespace {

int NewSocket() {
  return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

void ProgramCloses(int fd) {
  ProgramCloseScope closing(fd, fd);
  syscall(SYS_close, fd);
}

bool IsOpen(int fd) {
  return fcntl(fd, F_GETFD) >= 0;
}

TEST(CloseWatch, LeavesANumberTheProgramClosedAndReusedToTheProgram) {
  const CloseWatch watch;
  const int fd = NewSocket();
  ASSERT_GE(fd, 0);
  ProgramCloses(fd);
  const int programs = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_EQ(programs, fd) << "the lowest free number is given again";
  {
    OwnedFd adopted = watch.Adopt(fd);
    EXPECT_FALSE(adopted.valid());
    EXPECT_EQ(errno, EBADF);
  }
  EXPECT_TRUE(IsOpen(programs)) << "the program's file must stay open";
  close(programs);
}

TEST(CloseWatch, AdoptsWhenOnlyOtherNumbersWereClosed) {
  const int other = NewSocket();
  const CloseWatch watch;
  const int fd = NewSocket();
  ProgramCloses(other);
  OwnedFd adopted = watch.Adopt(fd);
  ASSERT_TRUE(adopted.valid());
  adopted.Close();
  EXPECT_FALSE(IsOpen(fd));
}

TEST(CloseWatch, MoreClosesThanItRemembersLeaveTheNumber) {
  const CloseWatch watch;
  const int fd = NewSocket();
  for (int i = 0; i < 300; ++i) ProgramCloses(-1);
  EXPECT_FALSE(watch.Adopt(fd).valid());
  EXPECT_TRUE(IsOpen(fd)) << "left, never closed: it may be the program's";
  syscall(SYS_close, fd);
}

TEST(CloseWatch, ARangeCloseCoveringTheNumberCounts) {
  const CloseWatch watch;
  const int fd = NewSocket();
  {
    ProgramCloseScope closing(fd - 1, fd + 100);
    syscall(SYS_close, fd);
  }
  EXPECT_FALSE(watch.Adopt(fd).valid());
}

TEST(CloseWatch, WaitsForACloseInProgress) {
  const CloseWatch watch;
  const int fd = NewSocket();
  auto closing = std::make_unique<ProgramCloseScope>(fd, fd);
  bool adopted = true;
  std::thread adopter([&] { adopted = watch.Adopt(fd).valid(); });
  // Whenever the adopter got there, the close has not ended: it must wait for it.
  syscall(SYS_close, fd);
  closing.reset();
  adopter.join();
  EXPECT_FALSE(adopted);
}

TEST(CloseWatch, APipeWithOneEndClosedIsNotAdoptedAndItsOtherEndIsClosed) {
  const CloseWatch watch;
  int ends[2];
  ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
  ProgramCloses(ends[0]);
  OwnedFd read_end, write_end;
  EXPECT_FALSE(watch.AdoptPair(ends, read_end, write_end));
  EXPECT_FALSE(read_end.valid());
  EXPECT_FALSE(write_end.valid());
  EXPECT_FALSE(IsOpen(ends[1])) << "the end that was still the runtime's is closed";
}

TEST(CloseWatch, APipeIsAdoptedWhenNeitherEndWasClosed) {
  const CloseWatch watch;
  int ends[2];
  ASSERT_EQ(pipe2(ends, O_CLOEXEC), 0);
  OwnedFd read_end, write_end;
  ASSERT_TRUE(watch.AdoptPair(ends, read_end, write_end));
  EXPECT_EQ(read_end.get(), ends[0]);
  EXPECT_EQ(write_end.get(), ends[1]);
}

TEST(MakeOwnedFd, MakesTheDescriptorAgainWhenTheProgramTookTheNumber) {
  int makes = 0;
  int programs = -1;
  OwnedFd made = MakeOwnedFd([&] {
    const int fd = NewSocket();
    if (++makes == 1) {
      ProgramCloses(fd);
      programs = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    return fd;
  });
  EXPECT_EQ(makes, 2);
  ASSERT_TRUE(made.valid());
  EXPECT_NE(made.get(), programs);
  EXPECT_TRUE(IsOpen(programs));
  close(programs);
}

}  // namespace
}  // namespace aiprof::runtime
