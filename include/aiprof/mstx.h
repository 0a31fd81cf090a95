/* aiprof markers: an mstx-shaped C API (Ascend mstx / NVTX-like) implemented by
 * libaiprof.so. Marks, push/pop ranges (nest per thread), start/end ranges (may end on
 * another thread), domains, registered strings (the fastest path: no hashing or string
 * comparison per event) and optional category / color / payload attributes.
 *
 * Collected while a window is open and the `msproftx` option is on (default on), filtered
 * by `mstx_domain_include` / `mstx_domain_exclude` (the default domain is "default").
 * When not collecting every call costs one relaxed load. The `stream` argument names a
 * device stream for device-side markers; it is accepted and not yet used. */
#ifndef AIPROF_MSTX_H_
#define AIPROF_MSTX_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t mstxRangeId;                 /* 0 = not recorded */
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
  uint32_t fields;        /* mstxAttributeFields */
  uint32_t color_argb;
  uint32_t category;      /* stored as 16 bits */
  uint32_t payload_type;  /* mstxPayloadType */
  union {
    uint64_t u64;
    int64_t i64;
    double f64;
  } payload;
} mstxEventAttributes;

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

#endif /* AIPROF_MSTX_H_ */
