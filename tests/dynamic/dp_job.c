/* A training loop for the dynamic_profile tests: aiprofDynamicInit(<config_dir>), then one
 * step per line read from stdin ("step"), each step marked with mstx, followed by
 * aiprofDynamicStep(). "start <file>" calls aiprofDynamicStart. Driving steps from stdin
 * makes the test independent of timing. */
#include <stdio.h>
#include <string.h>

#include "aiprof/dynamic_profile.h"
#include "aiprof/mstx.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <config_dir>\n", argv[0]);
    return 2;
  }
  if (aiprofDynamicInit(argv[1]) != AIPROF_SUCCESS) {
    fprintf(stderr, "aiprofDynamicInit failed\n");
    return 1;
  }
  unsigned long step = 0;
  char line[4096];
  printf("ready\n");
  fflush(stdout);
  while (fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "start ", 6) == 0) {
      printf("start %d\n", (int)aiprofDynamicStart(line + 6));
    } else {
      char message[64];
      snprintf(message, sizeof message, "work %lu", step);
      mstxMarkA(message, NULL);
      aiprofDynamicStep();
      ++step;
      printf("stepped %lu\n", step);
    }
    fflush(stdout);
  }
  return 0;
}
