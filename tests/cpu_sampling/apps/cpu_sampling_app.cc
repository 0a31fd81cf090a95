// Test program for CPU sampling (tests/cpu_sampling): built with and without frame pointers.
//   hot [rounds]: main thread and a new thread each spend ~70% of their CPU time in HotLoop
//          and ~30% in ColdLoop (by thread CPU time), 20 ms of CPU per round (default 30),
//          and a forked child runs HotLoop.
//   block: the main thread waits at least 300 ms on a mutex another thread holds, then at
//          least 200 ms in read() on a pipe the other thread writes late.
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

volatile uint64_t g_sink;

uint64_t ThreadCpuNs() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

__attribute__((noinline)) void SpinFor(uint64_t cpu_ns, uint64_t seed) {
  uint64_t end = ThreadCpuNs() + cpu_ns;
  uint64_t x = seed;
  while (ThreadCpuNs() < end) {
    for (int i = 0; i < 200000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  }
  g_sink = x;
}

__attribute__((noinline)) void HotLoop(uint64_t cpu_ns) {
  uint64_t end = ThreadCpuNs() + cpu_ns;
  uint64_t x = 1;
  while (ThreadCpuNs() < end) {
    for (int i = 0; i < 200000; ++i) x = x * 2862933555777941757ull + 3037000493ull;
  }
  g_sink = x;
}

// Calls SpinFor as a real call (not a tail jump) so that ColdLoop has a frame above it.
__attribute__((noinline)) void ColdLoop(uint64_t cpu_ns) {
  SpinFor(cpu_ns, 7);
  g_sink = g_sink + 1;
}

// Not inlined, so that the hot functions have a named caller of their own.
__attribute__((noinline)) void Work(int rounds) {
  for (int round = 0; round < rounds; ++round) {
    HotLoop(14000000);
    ColdLoop(6000000);
  }
}

int Hot(int rounds) {
  std::thread worker([rounds] { Work(rounds); });
  pid_t child = fork();
  if (child == 0) {
    HotLoop(300000000);
    _exit(0);
  }
  Work(rounds);
  worker.join();
  int status = 0;
  waitpid(child, &status, 0);
  return 0;
}

// Returns once `tid`, which set `about_to_block` just before a blocking call, sleeps in the
// kernel: the other thread's delays then start from the moment the wait began, so a loaded
// machine lengthens the waits the tests measure and never shortens them.
void WaitUntilBlocked(pid_t tid, const std::atomic<bool>& about_to_block) {
  while (!about_to_block) usleep(100);
  const std::string stat = "/proc/self/task/" + std::to_string(tid) + "/stat";
  for (int tries = 0; tries < 50000; ++tries) {  // at most about 5 s
    char text[512] = {};
    if (FILE* file = std::fopen(stat.c_str(), "r")) {
      const size_t read = std::fread(text, 1, sizeof text - 1, file);
      std::fclose(file);
      const char* state = std::strrchr(text, ')');  // the state follows the command's ")"
      if (read > 0 && state != nullptr && state[2] == 'S') return;
    }
    usleep(100);
  }
}

// Not inlined, so that the blocking stacks have a function of the app's own above libc.
__attribute__((noinline)) int Block() {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  int fds[2];
  if (pipe(fds) != 0) return 1;
  const pid_t main_tid = gettid();
  std::atomic<bool> locked{false}, locking{false}, reading{false};
  std::thread holder([&] {
    pthread_mutex_lock(&mutex);
    locked = true;
    WaitUntilBlocked(main_tid, locking);
    usleep(300000);
    pthread_mutex_unlock(&mutex);
    WaitUntilBlocked(main_tid, reading);
    usleep(200000);
    char byte = 'x';
    if (write(fds[1], &byte, 1) != 1) std::perror("write");
  });
  while (!locked) usleep(100);
  locking = true;
  pthread_mutex_lock(&mutex);  // waits >= 300 ms
  pthread_mutex_unlock(&mutex);
  char byte = 0;
  reading = true;
  if (read(fds[0], &byte, 1) != 1) return 1;  // waits >= 200 ms
  holder.join();
  return byte == 'x' ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s hot [rounds]|block\n", argv[0]);
    return 2;
  }
  if (std::strcmp(argv[1], "hot") == 0) return Hot(argc > 2 ? std::atoi(argv[2]) : 30);
  if (std::strcmp(argv[1], "block") == 0) return Block();
  std::fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
