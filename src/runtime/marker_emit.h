// Record writers for markers, shared by the mstx API, NVTX injection and the control API.
// Callers check aiprof_markers_active (and the domain's enabled flag) first.
#pragma once

#include <cstdint>
#include <cstring>

#include "aiprof/plugin.h"
#include "format/records.h"
#include "runtime/clock.h"
#include "runtime/runtime.h"

namespace aiprof::runtime {

using format::MarkerAttributes;
using format::RecordHeader;
using format::RecordKind;

// Installed by the CUDA source through aiprof_set_device_range_hooks (markers.cc).
void SetDeviceRangeHooks(aiprof_device_range_start_fn start, aiprof_device_range_end_fn end);

inline void WriteHeader(uint8_t* at, uint64_t ts, RecordKind kind, uint8_t ext_words, uint16_t aux,
                        uint32_t arg) {
  RecordHeader header{ts, static_cast<uint8_t>(kind), ext_words, aux, arg};
  std::memcpy(at, &header, sizeof header);
}

// kMark / kRangePush / kRangePop / kStepBegin / kStepEnd / kThreadName.
inline void EmitSimple(ThreadState* state, RecordKind kind, uint16_t aux, uint32_t arg) {
  uint8_t* at = Reserve(state, 16, static_cast<uint8_t>(kind));
  if (at == nullptr) return;
  WriteHeader(at, Now(), kind, 0, aux, arg);
  Commit(state, 16);
}

inline void EmitWithAttributes(ThreadState* state, RecordKind kind, uint16_t aux, uint32_t arg,
                               const MarkerAttributes& attributes) {
  uint8_t* at = Reserve(state, 32, static_cast<uint8_t>(kind));
  if (at == nullptr) return;
  WriteHeader(at, Now(), kind, 1, aux, arg);
  std::memcpy(at + 16, &attributes, sizeof attributes);
  Commit(state, 32);
}

inline uint64_t NextRangeId(ThreadState* state) {
  if (__builtin_expect(state->next_range_id == state->range_id_limit, 0)) {
    state->next_range_id = GetRuntime().next_id.fetch_add(kRangeIdBatch, std::memory_order_relaxed);
    state->range_id_limit = state->next_range_id + kRangeIdBatch;
  }
  return state->next_range_id++;
}

// Returns the range id (0 if dropped).
inline uint64_t EmitRangeStart(ThreadState* state, uint16_t domain, uint32_t name,
                               const MarkerAttributes* attributes) {
  uint32_t bytes = attributes != nullptr ? 48 : 32;
  uint8_t* at = Reserve(state, bytes, static_cast<uint8_t>(RecordKind::kRangeStart));
  if (at == nullptr) return 0;
  uint64_t id = NextRangeId(state);
  WriteHeader(at, Now(), RecordKind::kRangeStart, static_cast<uint8_t>(bytes / 16 - 1), domain,
              name);
  format::RangeId range{id, 0};
  std::memcpy(at + 16, &range, sizeof range);
  if (attributes != nullptr) std::memcpy(at + 32, attributes, sizeof *attributes);
  Commit(state, bytes);
  return id;
}

inline void EmitRangeEnd(ThreadState* state, uint16_t domain, uint64_t id) {
  uint8_t* at = Reserve(state, 32, static_cast<uint8_t>(RecordKind::kRangeEnd));
  if (at == nullptr) return;
  WriteHeader(at, Now(), RecordKind::kRangeEnd, 1, domain, 0);
  format::RangeId range{id, 0};
  std::memcpy(at + 16, &range, sizeof range);
  Commit(state, 32);
}

}  // namespace aiprof::runtime
