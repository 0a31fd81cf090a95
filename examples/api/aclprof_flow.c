/* The aclprof API flow of seed 001 with aiprof's C API (include/aiprof/aiprof.h):
 *
 *   aclprofInit         -> aiprofInit            where the data goes
 *   aclprofCreateConfig -> aiprofCreateConfig    what to collect
 *   aclprofStart        -> aiprofStart           opens a window (one PROF_* directory)
 *   aclmdlExecute       -> the program's own work, marked as iterations and mstx ranges
 *   aclprofStop         -> aiprofStop            flushes and closes the window
 *   aclprofDestroyConfig-> aiprofDestroyConfig
 *   aclprofFinalize     -> aiprofFinalize
 *
 * Usage: aclprof_flow <output dir> [iterations]; then `aiprof export --output=<output dir>`
 * (add `--iteration-id=3` to export the third iteration only). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"

enum { kSize = 96 };

static float g_a[kSize][kSize], g_b[kSize][kSize], g_c[kSize][kSize];

/* The "model": one matrix product per iteration. */
static void ExecuteModel(int iteration) {
  mstxRangeId range = mstxRangeStartA("Execute", NULL);
  for (int i = 0; i < kSize; ++i) {
    for (int j = 0; j < kSize; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < kSize; ++k) sum += g_a[i][k] * g_b[k][j];
      g_c[i][j] = sum + (float)iteration;
    }
  }
  mstxRangeEnd(range);
}

static int Check(aiprofError error, const char* call) {
  if (error == AIPROF_SUCCESS) return 1;
  fprintf(stderr, "aclprof_flow: %s failed: %s\n", call, aiprofLastError());
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <output dir> [iterations]\n", argv[0]);
    return 2;
  }
  const int iterations = argc > 2 ? atoi(argv[2]) : 5;
  for (int i = 0; i < kSize; ++i) {
    for (int j = 0; j < kSize; ++j) {
      g_a[i][j] = (float)(i + j) / kSize;
      g_b[i][j] = (float)(i - j) / kSize;
    }
  }
  if (!Check(aiprofInit(argv[1]), "aiprofInit")) return 1;
  aiprofConfig* config = aiprofCreateConfig(NULL, 0, AIPROF_TYPE_DEFAULT);
  if (config == NULL) {
    fprintf(stderr, "aclprof_flow: aiprofCreateConfig failed: %s\n", aiprofLastError());
    return 1;
  }
  /* Options of AIPROF_OPTIONS by key (docs/cli.md): here the mstx markers (msprof --msproftx). */
  if (!Check(aiprofConfigSetOption(config, "msproftx", "true"), "aiprofConfigSetOption") ||
      !Check(aiprofStart(config), "aiprofStart")) {
    return 1;
  }
  for (int iteration = 1; iteration <= iterations; ++iteration) {
    aiprofStepBegin((uint64_t)iteration);
    ExecuteModel(iteration);
    aiprofStepEnd((uint64_t)iteration);
  }
  if (!Check(aiprofStop(config), "aiprofStop")) return 1;
  printf("aclprof_flow: %d iterations in %s\n", iterations, aiprofCurrentDir());
  if (!Check(aiprofDestroyConfig(config), "aiprofDestroyConfig") ||
      !Check(aiprofFinalize(), "aiprofFinalize")) {
    return 1;
  }
  return 0;
}
