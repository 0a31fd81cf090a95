/* The job the dynamic tests attach to: an mstx mark every millisecond whose message is the
 * CLOCK_MONOTONIC time it was taken ("tick <ns>"), so a test can tell which marks fall in
 * which start..stop window. Runs until <finish_file> exists, prints "ticks <n>" and exits
 * with <exit_code>. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "aiprof/mstx.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <finish_file> <exit_code>\n", argv[0]);
    return 2;
  }
  printf("pid %d\n", (int)getpid());
  fflush(stdout);
  long ticks = 0;
  while (access(argv[1], F_OK) != 0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char message[64];
    snprintf(message, sizeof message, "tick %lld",
             (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
    mstxMarkA(message, NULL);
    ++ticks;
    struct timespec millisecond = {0, 1000000};
    nanosleep(&millisecond, NULL);
  }
  printf("ticks %s\n", ticks > 0 ? "counted" : "none");
  return atoi(argv[2]);
}
