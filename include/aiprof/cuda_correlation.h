/* Attributing GPU work to the framework operator or mstx range that launched it.
 *
 * libaiprof_cuda.so exports these functions. Callers (the torch plugin, the runtime's mstx
 * implementation) must not link against it: the CUDA source is loaded only in processes
 * that use CUDA. Look the functions up at run time instead:
 *
 *   aiprof_cuda_push_external_id_fn push =
 *       (aiprof_cuda_push_external_id_fn)dlsym(RTLD_DEFAULT, AIPROF_CUDA_PUSH_EXTERNAL_ID);
 *
 * and call push when an operator (or range) begins on a thread and pop when it ends, on the
 * same thread. Every CUDA runtime/driver call made in between is tied to `id` through a
 * CUPTI external correlation record (kCudaExternalCorrelation, src/format/records_cuda.h),
 * and so is every kernel, copy and set those calls launched. `id` must be the id the caller
 * writes into its own operator/range record (e.g. the torch operator's sequence id or the
 * mstx RangeId) so the importer can join the two; ids are per kind.
 *
 * Both functions are cheap (one CUPTI call, no allocation) and return 0 without effect when
 * CUDA collection is off. */
#ifndef AIPROF_CUDA_CORRELATION_H_
#define AIPROF_CUDA_CORRELATION_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The `kind` argument: which id space `id` belongs to. */
#define AIPROF_CUDA_EXTERNAL_OPERATOR 0u /* framework operator (CUPTI CUSTOM0) */
#define AIPROF_CUDA_EXTERNAL_RANGE 1u    /* mstx / NVTX range (CUPTI CUSTOM1) */

#define AIPROF_CUDA_PUSH_EXTERNAL_ID "aiprof_cuda_push_external_id"
#define AIPROF_CUDA_POP_EXTERNAL_ID "aiprof_cuda_pop_external_id"

/* Returns 1 if the id was pushed. */
int aiprof_cuda_push_external_id(uint32_t kind, uint64_t id);
/* Pops the innermost id of `kind` on the calling thread. Returns 1 if one was popped. */
int aiprof_cuda_pop_external_id(uint32_t kind);

typedef int (*aiprof_cuda_push_external_id_fn)(uint32_t kind, uint64_t id);
typedef int (*aiprof_cuda_pop_external_id_fn)(uint32_t kind);

#ifdef __cplusplus
}
#endif

#endif /* AIPROF_CUDA_CORRELATION_H_ */
