/* The job bench_dynamic_latency controls: an mstx mark every ~50 us whose message is the
 * CLOCK_MONOTONIC time it was taken, until stdin closes. */
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "aiprof/mstx.h"

int main(void) {
  printf("pid %d\n", (int)getpid());
  fflush(stdout);
  for (;;) {
    struct pollfd input = {STDIN_FILENO, POLLIN, 0};
    if (poll(&input, 1, 0) > 0) {
      char byte;
      if (read(STDIN_FILENO, &byte, 1) <= 0) return 0;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char message[64];
    snprintf(message, sizeof message, "tick %lld",
             (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
    mstxMarkA(message, NULL);
    struct timespec pause = {0, 50000};
    nanosleep(&pause, NULL);
  }
}
