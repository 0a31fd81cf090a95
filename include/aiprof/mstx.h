/* aiprof markers: an mstx-shaped C API (Ascend mstx / NVTX-like) implemented by
 * libaiprof.so. Marks, push/pop ranges (nest per thread), start/end ranges (may end on
 * another thread), domains, registered strings (the fastest path: no hashing or string
 * comparison per event) and optional category / color / payload attributes.
 *
 * Collected while a window is open and the `msproftx` option is on (default on), filtered
 * by `mstx_domain_include` / `mstx_domain_exclude` (the default domain is "default").
 * When not collecting every call costs one relaxed load. The `stream` argument of the
 * range-start calls names a device stream (a CUstream / cudaStream_t; CU_STREAM_LEGACY,
 * (void*)1, for the legacy default stream): when the CUDA source is loaded the range also
 * marks device time on that stream (CUDA events recorded at start and end, never waited
 * for; docs/cuda.md). Marks and push/pop ranges ignore it. */
#ifndef AIPROF_MSTX_H_
#define AIPROF_MSTX_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t mstxRangeId; /* 0 = not recorded */
typedef struct mstxDomainRegistration_st* mstxDomainHandle_t;
typedef struct mstxStringRegistration_st* mstxStringHandle_t;

enum mstxAttributeFields {
  MSTX_ATTR_COLOR = 1u << 0,
  MSTX_ATTR_CATEGORY = 1u << 1,
  MSTX_ATTR_PAYLOAD = 1u << 2,
};

enum mstxPayloadType {
  MSTX_PAYLOAD_NONE = 0,
  MSTX_PAYLOAD_UINT64 = 1,
  MSTX_PAYLOAD_INT64 = 2,
  MSTX_PAYLOAD_DOUBLE = 3,
};

/* Optional attributes of Ex calls; fields not named in `fields` are ignored. */
typedef struct mstxEventAttributes {
  uint32_t fields; /* mstxAttributeFields */
  uint32_t color_argb;
  uint32_t category;     /* stored as 16 bits */
  uint32_t payload_type; /* mstxPayloadType */
  union {
    uint64_t u64;
    int64_t i64;
    double f64;
  } payload;
} mstxEventAttributes;

/* Nonzero while a window is open (1: markers are recorded; 2: msproftx is off and calls are
 * only counted, so the run can say how many were ignored). The macros at the end of this
 * header test it inline so a call costs one load when no window is open. */
extern volatile int aiprof_markers_active;

/* Default domain. */
void mstxMarkA(const char* message, void* stream);
mstxRangeId mstxRangeStartA(const char* message, void* stream);
void mstxRangeEnd(mstxRangeId id);
void mstxRangePushA(const char* message, void* stream);
void mstxRangePop(void);
void mstxMarkExA(const char* message, const mstxEventAttributes* attributes, void* stream);
mstxRangeId mstxRangeStartExA(const char* message, const mstxEventAttributes* attributes,
                              void* stream);
void mstxRangePushExA(const char* message, const mstxEventAttributes* attributes, void* stream);

/* Domains. Creating an existing name returns the same handle. NULL = default domain. */
mstxDomainHandle_t mstxDomainCreateA(const char* name);
void mstxDomainDestroy(mstxDomainHandle_t domain);
void mstxDomainMarkA(mstxDomainHandle_t domain, const char* message, void* stream);
mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char* message, void* stream);
void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);
void mstxDomainRangePushA(mstxDomainHandle_t domain, const char* message, void* stream);
void mstxDomainRangePop(mstxDomainHandle_t domain);
void mstxDomainMarkExA(mstxDomainHandle_t domain, const char* message,
                       const mstxEventAttributes* attributes, void* stream);
mstxRangeId mstxDomainRangeStartExA(mstxDomainHandle_t domain, const char* message,
                                    const mstxEventAttributes* attributes, void* stream);
void mstxDomainRangePushExA(mstxDomainHandle_t domain, const char* message,
                            const mstxEventAttributes* attributes, void* stream);

/* Registered strings: intern once, then mark/push with the handle. */
mstxStringHandle_t mstxDomainRegisterStringA(mstxDomainHandle_t domain, const char* text);
void mstxDomainMarkR(mstxDomainHandle_t domain, mstxStringHandle_t message, void* stream);
mstxRangeId mstxDomainRangeStartR(mstxDomainHandle_t domain, mstxStringHandle_t message,
                                  void* stream);
void mstxDomainRangePushR(mstxDomainHandle_t domain, mstxStringHandle_t message, void* stream);

#ifdef __cplusplus
}
#endif

/* Inline disabled check: each call below becomes "load the flag; call only if set". A
 * function-like macro does not expand inside its own expansion, so the real function is
 * still what gets called, and &mstxMarkA etc. still name the exported functions. Define
 * AIPROF_MSTX_NO_INLINE_CHECK to call the functions directly. */
#ifndef AIPROF_MSTX_NO_INLINE_CHECK
#define AIPROF_MSTX_ON_() \
  __builtin_expect(__atomic_load_n(&aiprof_markers_active, __ATOMIC_RELAXED) != 0, 0)
#define mstxMarkA(message, stream) (AIPROF_MSTX_ON_() ? mstxMarkA(message, stream) : (void)0)
#define mstxRangeStartA(message, stream) \
  (AIPROF_MSTX_ON_() ? mstxRangeStartA(message, stream) : (mstxRangeId)0)
#define mstxRangeEnd(id) (AIPROF_MSTX_ON_() ? mstxRangeEnd(id) : (void)0)
#define mstxRangePushA(message, stream) \
  (AIPROF_MSTX_ON_() ? mstxRangePushA(message, stream) : (void)0)
#define mstxRangePop() (AIPROF_MSTX_ON_() ? mstxRangePop() : (void)0)
#define mstxDomainMarkR(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainMarkR(domain, message, stream) : (void)0)
#define mstxDomainRangeStartR(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainRangeStartR(domain, message, stream) : (mstxRangeId)0)
#define mstxDomainRangePushR(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainRangePushR(domain, message, stream) : (void)0)
#define mstxDomainRangePop(domain) (AIPROF_MSTX_ON_() ? mstxDomainRangePop(domain) : (void)0)
#define mstxDomainMarkA(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainMarkA(domain, message, stream) : (void)0)
#define mstxDomainRangePushA(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainRangePushA(domain, message, stream) : (void)0)
#define mstxDomainRangeStartA(domain, message, stream) \
  (AIPROF_MSTX_ON_() ? mstxDomainRangeStartA(domain, message, stream) : (mstxRangeId)0)
#define mstxDomainRangeEnd(domain, id) \
  (AIPROF_MSTX_ON_() ? mstxDomainRangeEnd(domain, id) : (void)0)
#endif

#endif /* AIPROF_MSTX_H_ */
