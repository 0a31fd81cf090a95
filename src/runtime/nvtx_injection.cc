// NVTX v3 injection: a program annotated with the NVTX headers calls
// InitializeInjectionNvtx2 (found with dlsym(RTLD_DEFAULT) when libaiprof.so is preloaded,
// or through NVTX_INJECTION64_PATH) and we fill its CORE and CORE2 function slots. Every
// DSO that includes the NVTX headers calls this on its own, so it must be idempotent.
// The NVTX ABI types are restated here so the runtime builds without the CUDA headers.
#include <cstdint>
#include <cstring>
#include <cwchar>

#include "runtime/domains.h"
#include "runtime/marker_emit.h"

namespace aiprof::runtime {
namespace {

// --- NVTX ABI (nvtxDetail/nvtxTypes.h, nvToolsExt.h) ---
using NvtxFunctionPointer = void (*)();
using NvtxFunctionTable = NvtxFunctionPointer**;
struct NvtxExportTableCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, NvtxFunctionTable* out_table, unsigned* out_size);
};
constexpr uint32_t kEtidCallbacks = 1;
constexpr int kModuleCore = 1;
constexpr int kModuleCore2 = 5;
enum CoreCallback {
  kCoreMarkEx = 1,
  kCoreMarkA = 2,
  kCoreRangeStartEx = 4,
  kCoreRangeStartA = 5,
  kCoreRangeEnd = 7,
  kCoreRangePushEx = 8,
  kCoreRangePushA = 9,
  kCoreRangePop = 11,
  kCoreNameOsThreadA = 14,
};
enum Core2Callback {
  kDomainMarkEx = 1,
  kDomainRangeStartEx = 2,
  kDomainRangeEnd = 3,
  kDomainRangePushEx = 4,
  kDomainRangePop = 5,
  kDomainRegisterStringA = 10,
  kDomainCreateA = 12,
  kDomainDestroy = 14,
};
constexpr int32_t kColorArgb = 1;
constexpr int32_t kMessageAscii = 1;
constexpr int32_t kMessageRegistered = 3;

struct NvtxEventAttributes {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t color_type;
  uint32_t color;
  int32_t payload_type;
  int32_t reserved0;
  uint64_t payload;
  int32_t message_type;
  const void* message;
};

// Registered NVTX strings are handles whose value is the string id + 1.
inline uint32_t RegisteredId(const void* handle) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(handle) - 1);
}

inline bool MarkersOn(Domain* domain) {
  return MarkersRecorded() && __atomic_load_n(&domain->enabled, __ATOMIC_RELAXED) != 0;
}

uint32_t MessageId(ThreadState* state, const NvtxEventAttributes* attributes) {
  if (attributes == nullptr) return 0;
  if (attributes->message_type == kMessageAscii) {
    return InternCString(state, static_cast<const char*>(attributes->message));
  }
  if (attributes->message_type == kMessageRegistered) return RegisteredId(attributes->message);
  return 0;
}

bool ConvertAttributes(const NvtxEventAttributes* attributes, MarkerAttributes* out) {
  *out = MarkerAttributes{};
  if (attributes == nullptr) return false;
  if (attributes->color_type == kColorArgb) {
    out->color_argb = attributes->color;
    out->fields |= format::kMarkerHasColor;
  }
  if (attributes->category != 0) {
    out->category = static_cast<uint16_t>(attributes->category);
    out->fields |= format::kMarkerHasCategory;
  }
  if (attributes->payload_type >= format::kPayloadUInt64 &&
      attributes->payload_type <= format::kPayloadFloat) {
    out->payload = attributes->payload;
    out->payload_type = static_cast<uint8_t>(attributes->payload_type);
    out->fields |= format::kMarkerHasPayload;
  }
  return out->fields != 0;
}

void EmitEx(Domain* domain, RecordKind kind, const NvtxEventAttributes* attributes) {
  if (!MarkersOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  uint32_t name = MessageId(state, attributes);
  MarkerAttributes converted;
  if (ConvertAttributes(attributes, &converted)) {
    EmitWithAttributes(state, kind, domain->id, name, converted);
  } else {
    EmitSimple(state, kind, domain->id, name);
  }
}

uint64_t StartEx(Domain* domain, const NvtxEventAttributes* attributes) {
  if (!MarkersOn(domain)) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  uint32_t name = MessageId(state, attributes);
  MarkerAttributes converted;
  bool has = ConvertAttributes(attributes, &converted);
  return EmitRangeStart(state, domain->id, name, has ? &converted : nullptr);
}

void EmitA(RecordKind kind, const char* message) {
  Domain* domain = DomainOrDefault(nullptr);
  if (!MarkersOn(domain)) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  EmitSimple(state, kind, kDefaultDomainId, InternCString(state, message));
}

// NVTX push/pop return the nesting level; we do not track it (-2 = not available would
// also be allowed); 0 keeps callers that check for < 0 happy.
void CoreMarkEx(const NvtxEventAttributes* a) {
  EmitEx(DomainOrDefault(nullptr), RecordKind::kMark, a);
}
void CoreMarkA(const char* message) {
  EmitA(RecordKind::kMark, message);
}
uint64_t CoreRangeStartEx(const NvtxEventAttributes* a) {
  return StartEx(DomainOrDefault(nullptr), a);
}
uint64_t CoreRangeStartA(const char* message) {
  Domain* domain = DomainOrDefault(nullptr);
  if (!MarkersOn(domain)) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  return EmitRangeStart(state, kDefaultDomainId, InternCString(state, message), nullptr);
}
void CoreRangeEnd(uint64_t id) {
  if (id == 0 || __atomic_load_n(&aiprof_markers_active, __ATOMIC_RELAXED) != kMarkersRecorded) {
    return;
  }
  ThreadState* state = CurrentThread();
  if (state != nullptr) EmitRangeEnd(state, kDefaultDomainId, id);
}
int CorePushEx(const NvtxEventAttributes* a) {
  EmitEx(DomainOrDefault(nullptr), RecordKind::kRangePush, a);
  return 0;
}
int CorePushA(const char* message) {
  EmitA(RecordKind::kRangePush, message);
  return 0;
}
int CorePop() {
  Domain* domain = DomainOrDefault(nullptr);
  if (!MarkersOn(domain)) return 0;
  ThreadState* state = CurrentThread();
  if (state != nullptr) EmitSimple(state, RecordKind::kRangePop, kDefaultDomainId, 0);
  return 0;
}
void CoreNameOsThreadA(uint32_t tid, const char* name) {
  if (!Collecting() || name == nullptr) return;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return;
  uint32_t name_id = InternCString(state, name);
  if (tid == state->tid || tid == 0) {
    EmitSimple(state, RecordKind::kThreadName, 0, name_id);
    return;
  }
  uint8_t* at = Reserve(state, 32, static_cast<uint8_t>(RecordKind::kThreadName));
  if (at == nullptr) return;
  uint64_t now = Now();
  WriteHeader(at, now, RecordKind::kForeignThread, 0, 0, tid);
  WriteHeader(at + 16, now, RecordKind::kThreadName, 0, 0, name_id);
  Commit(state, 32);
}

void DomainMarkEx(void* domain, const NvtxEventAttributes* a) {
  EmitEx(DomainOrDefault(domain), RecordKind::kMark, a);
}
uint64_t DomainRangeStartEx(void* domain, const NvtxEventAttributes* a) {
  return StartEx(DomainOrDefault(domain), a);
}
void DomainRangeEnd(void* domain, uint64_t id) {
  if (id == 0 || __atomic_load_n(&aiprof_markers_active, __ATOMIC_RELAXED) != kMarkersRecorded) {
    return;
  }
  ThreadState* state = CurrentThread();
  if (state != nullptr) EmitRangeEnd(state, DomainOrDefault(domain)->id, id);
}
int DomainRangePushEx(void* domain, const NvtxEventAttributes* a) {
  EmitEx(DomainOrDefault(domain), RecordKind::kRangePush, a);
  return 0;
}
int DomainRangePop(void* domain) {
  Domain* resolved = DomainOrDefault(domain);
  if (!MarkersOn(resolved)) return 0;
  ThreadState* state = CurrentThread();
  if (state != nullptr) EmitSimple(state, RecordKind::kRangePop, resolved->id, 0);
  return 0;
}
const void* DomainRegisterStringA(void*, const char* text) {
  if (text == nullptr || !InitStrings()) return reinterpret_cast<const void*>(1);
  bool full = false;
  uint32_t id = GetRuntime().strings.Intern(text, std::strlen(text), &full);
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(id) + 1);
}
void* DomainCreateA(const char* name) {
  return CreateDomain(name);
}
void DomainDestroy(void*) {}

template <typename Function>
void SetSlot(NvtxFunctionTable table, unsigned size, unsigned index, Function function) {
  if (index < size && table[index] != nullptr) {
    *table[index] = reinterpret_cast<NvtxFunctionPointer>(function);
  }
}

}  // namespace
}  // namespace aiprof::runtime

using namespace aiprof::runtime;

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(uint32_t)) {
  if (get_export_table == nullptr) return 0;
  auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(kEtidCallbacks));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  InitStrings();
  DefaultDomain();
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks->GetModuleFunctionTable(kModuleCore, &table, &size) && table != nullptr) {
    SetSlot(table, size, kCoreMarkEx, CoreMarkEx);
    SetSlot(table, size, kCoreMarkA, CoreMarkA);
    SetSlot(table, size, kCoreRangeStartEx, CoreRangeStartEx);
    SetSlot(table, size, kCoreRangeStartA, CoreRangeStartA);
    SetSlot(table, size, kCoreRangeEnd, CoreRangeEnd);
    SetSlot(table, size, kCoreRangePushEx, CorePushEx);
    SetSlot(table, size, kCoreRangePushA, CorePushA);
    SetSlot(table, size, kCoreRangePop, CorePop);
    SetSlot(table, size, kCoreNameOsThreadA, CoreNameOsThreadA);
  }
  table = nullptr;
  size = 0;
  if (callbacks->GetModuleFunctionTable(kModuleCore2, &table, &size) && table != nullptr) {
    SetSlot(table, size, kDomainMarkEx, DomainMarkEx);
    SetSlot(table, size, kDomainRangeStartEx, DomainRangeStartEx);
    SetSlot(table, size, kDomainRangeEnd, DomainRangeEnd);
    SetSlot(table, size, kDomainRangePushEx, DomainRangePushEx);
    SetSlot(table, size, kDomainRangePop, DomainRangePop);
    SetSlot(table, size, kDomainRegisterStringA, DomainRegisterStringA);
    SetSlot(table, size, kDomainCreateA, DomainCreateA);
    SetSlot(table, size, kDomainDestroy, DomainDestroy);
  }
  return 1;
}
