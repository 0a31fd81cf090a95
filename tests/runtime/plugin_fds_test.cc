// The plugins' descriptor registry (runtime/plugin_fds.h) through the plugin ABI
// (aiprof_fd_*): a number the program closes is never used nor closed by the plugin again.
// The program's close is what the interposed close family does (fd_hooks.cc): a
// ProgramCloseScope around the release of the plugins' numbers and the system call.
#include "runtime/plugin_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>
#include <thread>
#include <vector>

#include "aiprof/plugin.h"

namespace aiprof::runtime {
namespace {

void ProgramCloses(int first, int last) {
  ProgramCloseScope closing(first, last);
  if (AnyPluginFdIn(first, last)) ReleasePluginFds(first, last);
  for (int fd = first; fd <= last; ++fd) syscall(SYS_close, fd);
}

bool IsOpen(int fd) {
  return fcntl(fd, F_GETFD) >= 0;
}

// An eventfd (an anonymous inode, as a perf event) registered through the ABI; at `at` or
// the lowest free number above it when given.
int AdoptedEventFd(int at = -1) {
  const uint64_t watch = aiprof_fd_watch();
  int fd = eventfd(0, EFD_CLOEXEC);
  if (fd >= 0 && at >= 0) {
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, at);
    syscall(SYS_close, fd);
    fd = moved;
  }
  return aiprof_fd_adopt(watch, fd);
}

// Calls of a plugin's io through aiprof_fd_use.
struct Calls {
  int count = 0;
  int fd = -1;
};

void CountCall(int fd, void* context) {
  auto* calls = static_cast<Calls*>(context);
  ++calls->count;
  calls->fd = fd;
}

TEST(PluginFds, AnAdoptedNumberIsUsedAndClosed) {
  const int fd = AdoptedEventFd();
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(AnyPluginFdIn(fd, fd));
  Calls calls;
  EXPECT_EQ(aiprof_fd_use(fd, CountCall, &calls), 0);
  EXPECT_EQ(calls.count, 1);
  EXPECT_EQ(calls.fd, fd);
  EXPECT_EQ(aiprof_fd_close(fd), 0);
  EXPECT_FALSE(IsOpen(fd));
  EXPECT_FALSE(AnyPluginFdIn(fd, fd));
  EXPECT_EQ(aiprof_fd_use(fd, CountCall, &calls), -1);
  EXPECT_EQ(calls.count, 1);
}

TEST(PluginFds, AProgramCloseBetweenCreationAndAdoptionLeavesTheNumber) {
  const uint64_t watch = aiprof_fd_watch();
  const int fd = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ProgramCloses(fd, fd);
  const int programs = eventfd(0, EFD_CLOEXEC);
  ASSERT_EQ(programs, fd) << "the lowest free number is given again";
  EXPECT_EQ(aiprof_fd_adopt(watch, fd), -1);
  EXPECT_EQ(errno, EBADF);
  Calls calls;
  EXPECT_EQ(aiprof_fd_use(fd, CountCall, &calls), -1);
  EXPECT_EQ(calls.count, 0) << "the program's descriptor must not be touched";
  EXPECT_EQ(aiprof_fd_close(fd), -1);
  EXPECT_TRUE(IsOpen(programs)) << "the program's descriptor must stay open";
  syscall(SYS_close, programs);
}

TEST(PluginFds, ARangeCloseTakesThePluginsNumbersAndNoOthers) {
  std::vector<int> taken;
  for (int i = 0; i < 3; ++i) taken.push_back(AdoptedEventFd(400));
  const int kept = AdoptedEventFd(380);
  ASSERT_GE(kept, 0);
  for (int fd : taken) ASSERT_GE(fd, 400);
  ProgramCloses(390, 500);
  std::vector<int> programs;
  for (int fd : taken) {
    programs.push_back(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, fd));
    ASSERT_EQ(programs.back(), fd) << "the program's descriptor takes the old number";
  }
  Calls calls;
  for (int fd : taken) {
    EXPECT_EQ(aiprof_fd_use(fd, CountCall, &calls), -1);
    EXPECT_EQ(aiprof_fd_close(fd), -1);
    EXPECT_TRUE(IsOpen(fd)) << "the program's descriptor " << fd << " must stay open";
  }
  EXPECT_EQ(calls.count, 0);
  EXPECT_EQ(aiprof_fd_use(kept, CountCall, &calls), 0) << "outside the range: still the plugin's";
  EXPECT_EQ(aiprof_fd_close(kept), 0);
  for (int fd : programs) syscall(SYS_close, fd);
}

// What a plugin reads at each flush to learn that the program closed registered numbers:
// the count of the numbers unregistered, and when; closes of numbers no plugin registered
// and the plugins' own closes leave both alone.
TEST(PluginFds, TheProgramsClosesOfRegisteredNumbersAreCountedAndTimed) {
  uint64_t before_ns = 0;
  const uint64_t before = aiprof_fd_job_closes(&before_ns);
  const int own = AdoptedEventFd();
  ASSERT_GE(own, 0);
  EXPECT_EQ(aiprof_fd_close(own), 0);
  const int unregistered = eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(unregistered, 0);
  ProgramCloses(unregistered, unregistered);
  uint64_t same_ns = 0;
  EXPECT_EQ(aiprof_fd_job_closes(&same_ns), before) << "no registered number was closed";
  EXPECT_EQ(same_ns, before_ns);

  std::vector<int> taken;
  for (int i = 0; i < 3; ++i) taken.push_back(AdoptedEventFd(600));
  for (int fd : taken) ASSERT_GE(fd, 600);
  timespec start;
  clock_gettime(CLOCK_MONOTONIC_RAW, &start);
  ProgramCloses(600, 700);
  uint64_t closed_ns = 0;
  EXPECT_EQ(aiprof_fd_job_closes(&closed_ns), before + 3);
  EXPECT_GE(closed_ns, static_cast<uint64_t>(start.tv_sec) * 1000000000ull +
                           static_cast<uint64_t>(start.tv_nsec));
  EXPECT_EQ(aiprof_fd_job_closes(nullptr), before + 3);
}

TEST(PluginFds, WordBoundariesOfARangeClose) {
  const int below = AdoptedEventFd(511);
  const int first = AdoptedEventFd(512);
  const int last = AdoptedEventFd(575);
  const int above = AdoptedEventFd(576);
  ASSERT_EQ(below, 511);
  ASSERT_EQ(first, 512);
  ASSERT_EQ(last, 575);
  ASSERT_EQ(above, 576);
  EXPECT_FALSE(AnyPluginFdIn(513, 574));
  EXPECT_TRUE(AnyPluginFdIn(575, 575));
  ProgramCloses(512, 575);
  EXPECT_FALSE(AnyPluginFdIn(512, 575));
  EXPECT_TRUE(AnyPluginFdIn(511, 511));
  EXPECT_TRUE(AnyPluginFdIn(576, INT_MAX));
  EXPECT_EQ(aiprof_fd_close(below), 0);
  EXPECT_EQ(aiprof_fd_close(above), 0);
}

TEST(PluginFds, NumbersAtOrAboveTheBoundAreNotRegistered) {
  const uint64_t watch = aiprof_fd_watch();
  EXPECT_EQ(aiprof_fd_adopt(watch, kPluginFdBound), -1);
  EXPECT_EQ(errno, EMFILE);
  Calls calls;
  EXPECT_EQ(aiprof_fd_use(kPluginFdBound + 5, CountCall, &calls), -1);
  EXPECT_EQ(aiprof_fd_use(-1, CountCall, &calls), -1);
  EXPECT_EQ(aiprof_fd_close(kPluginFdBound), -1);
  EXPECT_EQ(calls.count, 0);
  // A closefrom's range reaches INT_MAX: clamped to the highest number ever registered.
  EXPECT_FALSE(AnyPluginFdIn(kPluginFdBound, INT_MAX));
  ReleasePluginFds(kPluginFdBound - 1, INT_MAX);
}

TEST(PluginFds, AProgramsCloseWaitsForAUseInProgress) {
  const int fd = AdoptedEventFd();
  ASSERT_GE(fd, 0);
  struct Shared {
    std::atomic<bool> in_use{false};
    std::atomic<bool> closing{false};
    std::atomic<bool> used{false};
  } shared;
  std::thread plugin([&] {
    aiprof_fd_use(
        fd,
        [](int, void* context) {
          auto* state = static_cast<Shared*>(context);
          state->in_use.store(true);
          while (!state->closing.load()) std::this_thread::yield();
          // Long enough for a close that did not wait to have returned.
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          state->used.store(true);
        },
        &shared);
  });
  while (!shared.in_use.load()) std::this_thread::yield();
  bool used_when_released = false;
  {
    ProgramCloseScope closing(fd, fd);
    shared.closing.store(true);
    ASSERT_TRUE(AnyPluginFdIn(fd, fd));
    ReleasePluginFds(fd, fd);
    used_when_released = shared.used.load();
    syscall(SYS_close, fd);
  }
  plugin.join();
  EXPECT_TRUE(used_when_released) << "the program's close returned during the plugin's use";
  EXPECT_EQ(aiprof_fd_close(fd), -1) << "the program closed it";
}

TEST(PluginFds, OpenRegistersAFile) {
  const int fd = aiprof_fd_open("/proc/self/comm", O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  Calls calls;
  EXPECT_EQ(aiprof_fd_use(fd, CountCall, &calls), 0);
  EXPECT_EQ(aiprof_fd_close(fd), 0);
  EXPECT_EQ(aiprof_fd_open("/nonexistent/aiprof", O_RDONLY), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(aiprof_fd_open(nullptr, O_RDONLY), -1);
}

// Plugin threads make, use and close descriptors while the program closes their numbers
// and opens its own pipes under them: no use of the plugin ever runs on the program's pipe,
// and the program's pipe is never closed under it. Run under TSan in the sanitizer stage;
// descriptors are made and inspected by system calls, as the registry closes them (TSan's
// model of descriptors follows libc's calls and would take a number closed by system call
// and made again for a race).
TEST(PluginFds, PluginsAndAProgramClosingTheirNumbersNeverTouchTheProgramsDescriptors) {
  constexpr int kFirst = 600;
  constexpr int kLast = 700;
  std::atomic<bool> done{false};
  std::atomic<int> uses_on_program_pipes{0};
  std::atomic<int> uses{0};
  auto plugin = [&] {
    while (!done.load()) {
      const uint64_t watch = aiprof_fd_watch();
      const int made = static_cast<int>(syscall(SYS_eventfd2, 0, EFD_CLOEXEC));
      const int fd = static_cast<int>(syscall(SYS_fcntl, made, F_DUPFD_CLOEXEC, kFirst));
      syscall(SYS_close, made);
      std::this_thread::yield();  // a window for the program's close, as a busy job gives
      if (fd < 0 || aiprof_fd_adopt(watch, fd) < 0) continue;  // the program's now, or left
      std::this_thread::yield();
      struct Check {
        std::atomic<int>* on_pipe;
        std::atomic<int>* uses;
      } check{&uses_on_program_pipes, &uses};
      aiprof_fd_use(
          fd,
          [](int number, void* context) {
            auto* state = static_cast<Check*>(context);
            struct stat info {};
            if (syscall(SYS_fstat, number, &info) == 0 && S_ISFIFO(info.st_mode)) {
              state->on_pipe->fetch_add(1);
            }
            state->uses->fetch_add(1);
          },
          &check);
      aiprof_fd_close(fd);
    }
  };
  int pipes_closed_under_the_program = 0;
  std::thread plugins[2] = {std::thread(plugin), std::thread(plugin)};
  std::thread program([&] {
    for (int round = 0; round < 1000; ++round) {
      ProgramCloses(kFirst, kLast);
      int ends[2];
      if (syscall(SYS_pipe2, ends, O_CLOEXEC) != 0) continue;
      int mine[2];
      for (int end = 0; end < 2; ++end) {
        mine[end] = static_cast<int>(syscall(SYS_fcntl, ends[end], F_DUPFD_CLOEXEC, kFirst));
        syscall(SYS_close, ends[end]);
      }
      std::this_thread::yield();
      for (int end = 0; end < 2; ++end) {
        if (mine[end] < 0) continue;
        if (syscall(SYS_fcntl, mine[end], F_GETFD) < 0) ++pipes_closed_under_the_program;
        ProgramCloses(mine[end], mine[end]);
      }
    }
    done.store(true);
  });
  program.join();
  for (std::thread& thread : plugins) thread.join();
  EXPECT_EQ(uses_on_program_pipes.load(), 0);
  EXPECT_EQ(pipes_closed_under_the_program, 0);
  EXPECT_GT(uses.load(), 0);
  ProgramCloses(kFirst, kLast);
}

}  // namespace
}  // namespace aiprof::runtime
