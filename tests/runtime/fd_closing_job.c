/* Helper program for aiprof_runtime_process_tests: a job that, like a daemon or some
 * launchers, closes every descriptor above 2 while it runs and then opens its own files,
 * which get the numbers the runtime used. Usage:
 *   fd_closing_job <dir> <close|close_range|closefrom|dup2> <ranges per thread> [stop]
 * Two threads record ranges while the main thread, five times over, closes every descriptor
 * above 2 (the way named by the mode; dup2 puts /dev/null over each instead), then opens
 * three files at once (so they take the lowest numbers, the runtime's old ones) and writes
 * keep_<n>.txt ("keep_<n> ok\n", 10 bytes, in two writes with a pause between so that the
 * runtime's writer flushes meanwhile). With "stop", the last round stops the collection
 * (aiprofStop) between the two writes, while its files hold the old numbers: the sources'
 * stop (CPU sampling's perf events: ioctl, close) must leave them alone. Prints the number
 * of ranges recorded.
 * With FD_CLOSING_JOB_SAMPLED=1 (CPU sampling in perf mode), the last round, after its close,
 * writes that instant (CLOCK_MONOTONIC_RAW ns, the clock of perf samples) to last_close_ns,
 * waits (at most 10 s) until a perf event descriptor is open again (the sampler reopened its
 * events), then runs on the CPU and blocks, so that the samples after its last close show
 * whether sampling went on: on-CPU samples and blocking (off-CPU) stacks of this thread. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

static int g_ranges_per_thread;

static void Pause(long microseconds) {
  struct timespec pause = {0, microseconds * 1000};
  nanosleep(&pause, NULL);
}

static void* Record(void* unused) {
  (void)unused;
  for (int i = 0; i < g_ranges_per_thread; ++i) {
    mstxRangeEnd(mstxRangeStartA("work", NULL));
    if (i % 200 == 199) Pause(500);
  }
  return NULL;
}

static void CloseAbove2(const char* mode) {
  if (strcmp(mode, "close_range") == 0) {
    close_range(3, ~0u, 0);
  } else if (strcmp(mode, "closefrom") == 0) {
    closefrom(3);
  } else if (strcmp(mode, "dup2") == 0) {
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 3; fd < 256; ++fd) {
      if (fd != null_fd && fcntl(fd, F_GETFD) >= 0) dup2(null_fd, fd);
    }
    close(null_fd);
  } else {
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  }
}

static unsigned long long ClockNs(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

static int PerfEventOpenInProcess(void) {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == NULL) return 0;
  int found = 0;
  struct dirent* entry;
  while (!found && (entry = readdir(fds)) != NULL) {
    char path[300], target[64];
    snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
    ssize_t length = readlink(path, target, sizeof target - 1);
    if (length <= 0) continue;
    target[length] = '\0';
    found = strcmp(target, "anon_inode:[perf_event]") == 0;
  }
  closedir(fds);
  return found;
}

/* After the last close (FD_CLOSING_JOB_SAMPLED): see the usage above. */
static void RunAfterLastClose(const char* dir) {
  char path[4096], text[32];
  snprintf(path, sizeof path, "%s/last_close_ns", dir);
  snprintf(text, sizeof text, "%llu\n", ClockNs(CLOCK_MONOTONIC_RAW));
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
    perror(path);
    exit(3);
  }
  close(fd);
  for (int wait = 0; wait < 10000 && !PerfEventOpenInProcess(); ++wait) Pause(1000);
  for (int i = 0; i < 20; ++i) Pause(1000);
  unsigned long long until = ClockNs(CLOCK_THREAD_CPUTIME_ID) + 30000000ull;
  volatile unsigned long long spin = 0;
  while (ClockNs(CLOCK_THREAD_CPUTIME_ID) < until) spin = spin + 1;
}

static void WriteAll(int fd, const char* text) {
  size_t length = strlen(text);
  if (write(fd, text, length) != (ssize_t)length) {
    perror("write");
    exit(3);
  }
}

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "stop") == 0)) {
    fprintf(stderr, "usage: %s <dir> <mode> <ranges per thread> [stop]\n", argv[0]);
    return 2;
  }
  const int stop = argc == 5;
  const char* sampled = getenv("FD_CLOSING_JOB_SAMPLED");
  g_ranges_per_thread = atoi(argv[3]);
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, Record, NULL);
  Pause(20000);
  for (int round = 0; round < 5; ++round) {
    CloseAbove2(argv[2]);
    int fds[3];
    for (int i = 0; i < 3; ++i) {
      char path[4096], text[16];
      snprintf(path, sizeof path, "%s/keep_%d.txt", argv[1], round * 3 + i);
      fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fds[i] < 0) {
        perror(path);
        return 3;
      }
      snprintf(text, sizeof text, "keep_%d", round * 3 + i);
      WriteAll(fds[i], text);
    }
    Pause(15000);
    if (round == 4 && sampled != NULL && strcmp(sampled, "1") == 0) RunAfterLastClose(argv[1]);
    if (stop && round == 4 && aiprofStop(NULL) != AIPROF_SUCCESS) {
      fprintf(stderr, "aiprofStop failed\n");
      return 4;
    }
    for (int i = 0; i < 3; ++i) WriteAll(fds[i], " ok\n");
    Pause(5000);
    for (int i = 0; i < 3; ++i) close(fds[i]);
  }
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  printf("%d\n", 2 * g_ranges_per_thread);
  return 0;
}
