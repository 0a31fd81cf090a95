// The plugin ABI (include/aiprof/plugin.h).
#include <nlohmann/json.hpp>

#include "aiprof/plugin.h"
#include "runtime/marker_emit.h"
#include "runtime/session.h"
#include "runtime/sources.h"

#define AIPROF_EXPORT extern "C" __attribute__((visibility("default")))

using namespace aiprof::runtime;

AIPROF_EXPORT uint64_t aiprof_now(void) {
  return Now();
}

AIPROF_EXPORT uint32_t aiprof_intern(const char* text, size_t length) {
  if (text == nullptr || length == 0) return 0;
  ThreadState* state = CurrentThread();
  if (state != nullptr) return InternBytes(state, text, length);
  if (!InitStrings()) return 0;
  bool full = false;
  return GetRuntime().strings.Intern(text, length, &full);
}

namespace {
// A record is a header plus at most kMaxExtWords extension words.
constexpr uint32_t kMaxRecordWords = 1 + aiprof::format::kMaxExtWords;
}  // namespace

AIPROF_EXPORT int aiprof_emit(const void* record, uint32_t words) {
  if (!Collecting() || record == nullptr || words == 0 || words > kMaxRecordWords) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  uint32_t bytes = words * 16;
  uint8_t kind = static_cast<const RecordHeader*>(record)->kind;
  uint8_t* at = Reserve(state, bytes, kind);
  if (at == nullptr) return 0;
  // Word by word, inline: for these few words a call to libc's memcpy costs more than the
  // copy (PyTorch operators: 3 words each).
  const auto* from = static_cast<const uint8_t*>(record);
  for (uint32_t word = 0; word < words; ++word) std::memcpy(at + word * 16, from + word * 16, 16);
  Commit(state, bytes);
  return 1;
}

AIPROF_EXPORT int aiprof_emit_for_thread(uint32_t tid, const void* record, uint32_t words) {
  if (!Collecting() || record == nullptr || words == 0 || words > kMaxRecordWords) return 0;
  ThreadState* state = CurrentThread();
  if (state == nullptr) return 0;
  const auto* header = static_cast<const RecordHeader*>(record);
  if (tid == state->tid) return aiprof_emit(record, words);
  // A kForeignThread prefix attributes the next record to `tid` (records.h).
  uint32_t bytes = (words + 1) * 16;
  uint8_t* at = Reserve(state, bytes, header->kind);
  if (at == nullptr) return 0;
  WriteHeader(at, header->ts, RecordKind::kForeignThread, 0, 0, tid);
  std::memcpy(at + 16, record, words * 16);
  Commit(state, bytes);
  return 1;
}

AIPROF_EXPORT uint64_t aiprof_next_id(void) {
  return NextId();
}

AIPROF_EXPORT int aiprof_register_source(const aiprof_source* source) {
  if (source == nullptr) return -1;
  return RegisterSource(*source, Collecting()) ? 0 : -1;
}

AIPROF_EXPORT const char* aiprof_options_json(void) {
  return OptionsJsonCString();
}

AIPROF_EXPORT void aiprof_set_device_range_hooks(aiprof_device_range_start_fn start,
                                                 aiprof_device_range_end_fn end) {
  SetDeviceRangeHooks(start, end);
}

AIPROF_EXPORT void aiprof_add_metadata(const char* key, const char* json_value) {
  if (key == nullptr || json_value == nullptr) return;
  nlohmann::json value = nlohmann::json::parse(json_value, nullptr, false);
  if (value.is_discarded()) value = json_value;  // keep it, as a string, rather than lose it
  SetExtraMetadata(key, std::move(value));
}
