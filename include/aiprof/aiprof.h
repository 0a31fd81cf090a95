/* aiprof control API: collection driven from inside the program, shaped like the Ascend
 * acl profiling API (aclprofInit / aclprofCreateConfig / aclprofStart / aclprofStop /
 * aclprofDestroyConfig / aclprofFinalize), plus steps. C, usable from C++ and through
 * ctypes/pybind11. Implemented by libaiprof.so (src/runtime).
 *
 * Each aiprofStart..aiprofStop window writes one PROF_* directory under the output
 * directory given to aiprofInit. When a program runs under the `aiprof` launcher (or with
 * AIPROF_OPTIONS set), the runtime initialises and starts itself from the environment and
 * these calls only add steps and windows. */
#ifndef AIPROF_AIPROF_H_
#define AIPROF_AIPROF_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aiprofError {
  AIPROF_SUCCESS = 0,
  AIPROF_ERROR_INVALID_ARGUMENT = 1,
  AIPROF_ERROR_NOT_INITIALIZED = 2,
  AIPROF_ERROR_ALREADY_STARTED = 3,
  AIPROF_ERROR_NOT_STARTED = 4,
  AIPROF_ERROR_IO = 5,       /* output directory cannot be created or written */
  AIPROF_ERROR_DISABLED = 6, /* profiling was disabled after an internal fault */
} aiprofError;

/* Data types a config collects (bit mask). */
#define AIPROF_TYPE_MSTX (1ull << 0)        /* mstx / NVTX markers */
#define AIPROF_TYPE_TASK_TIME (1ull << 1)   /* framework operators and device tasks */
#define AIPROF_TYPE_RUNTIME_API (1ull << 2) /* CUDA runtime/driver API */
#define AIPROF_TYPE_MEMORY (1ull << 3)      /* allocator events */
#define AIPROF_TYPE_AIC_METRICS (1ull << 4) /* per-kernel hardware metrics */
#define AIPROF_TYPE_COMM (1ull << 5)        /* communication operations */
#define AIPROF_TYPE_DEVICE_SYS (1ull << 6)  /* GPU counters (NVML) */
#define AIPROF_TYPE_SHAPES (1ull << 7)      /* operator input shapes and dtypes */
#define AIPROF_TYPE_STACK (1ull << 8)       /* Python call stacks of operators */
#define AIPROF_TYPE_DEFAULT (AIPROF_TYPE_MSTX | AIPROF_TYPE_TASK_TIME)

typedef struct aiprofConfig aiprofConfig;

/* Sets the output directory (created if missing) and prepares the runtime. Idempotent. */
aiprofError aiprofInit(const char* output_dir);

/* device_ids may be NULL (all devices). Returns NULL on invalid arguments. */
aiprofConfig* aiprofCreateConfig(const uint32_t* device_ids, uint32_t device_count,
                                 uint64_t data_types);
/* Any option of AIPROF_OPTIONS by key (see docs/cli.md), value as JSON text, e.g.
 * ("aic_metrics", "\"PipeUtilization\""), ("buffer_mb", "128"). */
aiprofError aiprofConfigSetOption(aiprofConfig* config, const char* key, const char* json_value);
aiprofError aiprofDestroyConfig(aiprofConfig* config);

/* Opens a collection window (a new PROF_* directory). */
aiprofError aiprofStart(const aiprofConfig* config);
/* Closes the window: flushes every buffer and finishes the directory. */
aiprofError aiprofStop(const aiprofConfig* config);
/* Stops any open window and releases the runtime's resources. */
aiprofError aiprofFinalize(void);

/* Steps (iterations). A step is recorded as a range "ProfilerStep#<n>". */
void aiprofStepBegin(uint64_t step);
void aiprofStepEnd(uint64_t step);

/* 1 while a window is open. */
int aiprofIsCollecting(void);
/* The PROF_* directory of the open (or last) window, "" if none. */
const char* aiprofCurrentDir(void);
/* Human-readable description of the last error on this thread. */
const char* aiprofLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* AIPROF_AIPROF_H_ */
