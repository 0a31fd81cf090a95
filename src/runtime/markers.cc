// The mstx API (include/aiprof/mstx.h). The header's inline-check macros would rename the
// definitions below, so this file sees the plain declarations.
#define AIPROF_MSTX_NO_INLINE_CHECK
#include <atomic>

#include "aiprof/mstx.h"
#include "aiprof/plugin.h"
#include "runtime/domains.h"
#include "runtime/marker_emit.h"

#define AIPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace aiprof::runtime {
namespace {

// Set by the CUDA source (aiprof_set_device_range_hooks) when it is loaded.
std::atomic<aiprof_device_range_start_fn> g_device_range_start{nullptr};
std::atomic<aiprof_device_range_end_fn> g_device_range_end{nullptr};

inline bool MarkersOn() {
  return MarkersRecorded();
}

inline bool DomainOn(mstxDomainHandle_t handle) {
  return __atomic_load_n(&DomainOrDefault(handle)->enabled, __ATOMIC_RELAXED) != 0;
}

inline uint16_t DomainId(mstxDomainHandle_t handle) {
  return handle != nullptr ? reinterpret_cast<Domain*>(handle)->id : kDefaultDomainId;
}

MarkerAttributes ToRecordAttributes(const mstxEventAttributes* attributes) {
  MarkerAttributes converted{};
  if (attributes == nullptr) return converted;
  if (attributes->fields & MSTX_ATTR_COLOR) {
    converted.color_argb = attributes->color_argb;
    converted.fields |= format::kMarkerHasColor;
  }
  if (attributes->fields & MSTX_ATTR_CATEGORY) {
    converted.category = static_cast<uint16_t>(attributes->category);
    converted.fields |= format::kMarkerHasCategory;
  }
  if ((attributes->fields & MSTX_ATTR_PAYLOAD) && attributes->payload_type != MSTX_PAYLOAD_NONE) {
    converted.payload = attributes->payload.u64;
    converted.payload_type = static_cast<uint8_t>(attributes->payload_type);
    converted.fields |= format::kMarkerHasPayload;
  }
  return converted;
}

// Registered string handles carry id + 1, so no handle is NULL.
inline uint32_t HandleToId(mstxStringHandle_t handle) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(handle) - 1);
}

void Mark(mstxDomainHandle_t domain, const char* message, const mstxEventAttributes* attributes) {
  if (!MarkersOn() || !DomainOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  uint32_t name = InternCString(state, message);
  if (attributes == nullptr) {
    EmitSimple(state, RecordKind::kMark, DomainId(domain), name);
  } else {
    EmitWithAttributes(state, RecordKind::kMark, DomainId(domain), name,
                       ToRecordAttributes(attributes));
  }
}

void Push(mstxDomainHandle_t domain, const char* message, const mstxEventAttributes* attributes) {
  if (!MarkersOn() || !DomainOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  uint32_t name = InternCString(state, message);
  if (attributes == nullptr) {
    EmitSimple(state, RecordKind::kRangePush, DomainId(domain), name);
  } else {
    EmitWithAttributes(state, RecordKind::kRangePush, DomainId(domain), name,
                       ToRecordAttributes(attributes));
  }
}

void Pop(mstxDomainHandle_t domain) {
  if (!MarkersOn() || !DomainOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitSimple(state, RecordKind::kRangePop, DomainId(domain), 0);
}

// A range given a stream also marks device time on it when the CUDA source is loaded.
mstxRangeId MarkDevice(mstxRangeId id, void* stream) {
  if (id != 0 && stream != nullptr) {
    if (auto start = g_device_range_start.load(std::memory_order_acquire)) start(id, stream);
  }
  return id;
}

mstxRangeId Start(mstxDomainHandle_t domain, const char* message,
                  const mstxEventAttributes* attributes, void* stream) {
  if (!MarkersOn() || !DomainOn(domain)) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  uint32_t name = InternCString(state, message);
  if (attributes == nullptr) {
    return MarkDevice(EmitRangeStart(state, DomainId(domain), name, nullptr), stream);
  }
  MarkerAttributes converted = ToRecordAttributes(attributes);
  return MarkDevice(EmitRangeStart(state, DomainId(domain), name, &converted), stream);
}

void End(mstxDomainHandle_t domain, mstxRangeId id) {
  if (id == 0 || !MarkersOn()) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitRangeEnd(state, DomainId(domain), id);
  if (auto end = g_device_range_end.load(std::memory_order_acquire)) end(id);
}

}  // namespace

void SetDeviceRangeHooks(aiprof_device_range_start_fn start, aiprof_device_range_end_fn end) {
  g_device_range_start.store(start, std::memory_order_release);
  g_device_range_end.store(end, std::memory_order_release);
}

}  // namespace aiprof::runtime

using namespace aiprof::runtime;

AIPROF_EXPORT void mstxMarkA(const char* message, void*) {
  Mark(nullptr, message, nullptr);
}
AIPROF_EXPORT mstxRangeId mstxRangeStartA(const char* message, void* stream) {
  return Start(nullptr, message, nullptr, stream);
}
AIPROF_EXPORT void mstxRangeEnd(mstxRangeId id) {
  End(nullptr, id);
}
AIPROF_EXPORT void mstxRangePushA(const char* message, void*) {
  Push(nullptr, message, nullptr);
}
AIPROF_EXPORT void mstxRangePop(void) {
  Pop(nullptr);
}
AIPROF_EXPORT void mstxMarkExA(const char* message, const mstxEventAttributes* attributes, void*) {
  Mark(nullptr, message, attributes);
}
AIPROF_EXPORT mstxRangeId mstxRangeStartExA(const char* message,
                                            const mstxEventAttributes* attributes, void* stream) {
  return Start(nullptr, message, attributes, stream);
}
AIPROF_EXPORT void mstxRangePushExA(const char* message, const mstxEventAttributes* attributes,
                                    void*) {
  Push(nullptr, message, attributes);
}

AIPROF_EXPORT mstxDomainHandle_t mstxDomainCreateA(const char* name) {
  return reinterpret_cast<mstxDomainHandle_t>(CreateDomain(name));
}
// Domains live for the whole process (handles may still be used on other threads).
AIPROF_EXPORT void mstxDomainDestroy(mstxDomainHandle_t) {}
AIPROF_EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char* message, void*) {
  Mark(domain, message, nullptr);
}
AIPROF_EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char* message,
                                                void* stream) {
  return Start(domain, message, nullptr, stream);
}
AIPROF_EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id) {
  End(domain, id);
}
AIPROF_EXPORT void mstxDomainRangePushA(mstxDomainHandle_t domain, const char* message, void*) {
  Push(domain, message, nullptr);
}
AIPROF_EXPORT void mstxDomainRangePop(mstxDomainHandle_t domain) {
  Pop(domain);
}
AIPROF_EXPORT void mstxDomainMarkExA(mstxDomainHandle_t domain, const char* message,
                                     const mstxEventAttributes* attributes, void*) {
  Mark(domain, message, attributes);
}
AIPROF_EXPORT mstxRangeId mstxDomainRangeStartExA(mstxDomainHandle_t domain, const char* message,
                                                  const mstxEventAttributes* attributes,
                                                  void* stream) {
  return Start(domain, message, attributes, stream);
}
AIPROF_EXPORT void mstxDomainRangePushExA(mstxDomainHandle_t domain, const char* message,
                                          const mstxEventAttributes* attributes, void*) {
  Push(domain, message, attributes);
}

AIPROF_EXPORT mstxStringHandle_t mstxDomainRegisterStringA(mstxDomainHandle_t, const char* text) {
  Runtime& runtime = GetRuntime();
  if (text == nullptr || !InitStrings()) return reinterpret_cast<mstxStringHandle_t>(1);
  bool full = false;
  uint32_t id = runtime.strings.Intern(text, std::strlen(text), &full);
  return reinterpret_cast<mstxStringHandle_t>(static_cast<uintptr_t>(id) + 1);
}

AIPROF_EXPORT void mstxDomainMarkR(mstxDomainHandle_t domain, mstxStringHandle_t message, void*) {
  if (!MarkersOn() || !DomainOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitSimple(state, RecordKind::kMark, DomainId(domain), HandleToId(message));
}

AIPROF_EXPORT mstxRangeId mstxDomainRangeStartR(mstxDomainHandle_t domain,
                                                mstxStringHandle_t message, void* stream) {
  if (!MarkersOn() || !DomainOn(domain)) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  return MarkDevice(EmitRangeStart(state, DomainId(domain), HandleToId(message), nullptr), stream);
}

AIPROF_EXPORT void mstxDomainRangePushR(mstxDomainHandle_t domain, mstxStringHandle_t message,
                                        void*) {
  if (!MarkersOn() || !DomainOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitSimple(state, RecordKind::kRangePush, DomainId(domain), HandleToId(message));
}
