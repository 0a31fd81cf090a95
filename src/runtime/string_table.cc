#include "runtime/string_table.h"

#include <sched.h>
#include <sys/mman.h>

#include <cstring>

namespace aiprof::runtime {

namespace {

constexpr char kFullText[] = "<string table full>";
constexpr int kSpinsBeforeYield = 64;
constexpr int kMaxWaits = 10000;

uint64_t HashBytes(const char* text, size_t length) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < length; ++i) {
    hash ^= static_cast<uint8_t>(text[i]);
    hash *= 1099511628211ull;
  }
  hash ^= hash >> 29;
  return hash | 1;  // never 0, the empty-slot marker
}

void* MapZeroed(size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? nullptr : memory;
}

}  // namespace

bool StringTable::Init(uint32_t max_strings, size_t arena_bytes) {
  uint32_t slot_count = 1;
  while (slot_count < max_strings * 2) slot_count <<= 1;
  void* slots = MapZeroed(sizeof(Slot) * slot_count);
  void* entries = MapZeroed(sizeof(Entry) * max_strings);
  void* arena = MapZeroed(arena_bytes);
  if (slots == nullptr || entries == nullptr || arena == nullptr) return false;
  // Zero-filled memory is a valid state for these atomics (empty / unpublished).
  slots_ = static_cast<Slot*>(slots);
  entries_ = static_cast<Entry*>(entries);
  arena_ = static_cast<char*>(arena);
  slot_mask_ = slot_count - 1;
  max_strings_ = max_strings;
  arena_bytes_ = arena_bytes;
  bool full = false;
  Publish("", 0, &full);                             // id 0
  Publish(kFullText, sizeof(kFullText) - 1, &full);  // id 1 = kStringTableFullId
  return true;
}

uint32_t StringTable::Publish(const char* text, size_t length, bool* full) {
  size_t offset = arena_used_.fetch_add(length + 1, std::memory_order_relaxed);
  if (offset + length + 1 > arena_bytes_) {
    *full = true;
    full_drops_.fetch_add(1, std::memory_order_relaxed);
    return kStringTableFullId;
  }
  uint32_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  if (id >= max_strings_) {
    *full = true;
    full_drops_.fetch_add(1, std::memory_order_relaxed);
    return kStringTableFullId;
  }
  std::memcpy(arena_ + offset, text, length);
  arena_[offset + length] = '\0';
  entries_[id].offset = static_cast<uint32_t>(offset);
  entries_[id].length_plus_one.store(static_cast<uint32_t>(length) + 1, std::memory_order_release);
  return id;
}

uint32_t StringTable::Intern(const char* text, size_t length, bool* full) {
  *full = false;
  if (length == 0) return 0;
  uint64_t hash = HashBytes(text, length);
  for (uint32_t probe = 0; probe <= slot_mask_; ++probe) {
    Slot& slot = slots_[(hash + probe) & slot_mask_];
    uint64_t seen = slot.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      if (slot.hash.compare_exchange_strong(seen, hash, std::memory_order_acq_rel)) {
        uint32_t id = Publish(text, length, full);
        slot.id.store(id, std::memory_order_release);
        return id;
      }
    }
    if (seen != hash) continue;
    // Same hash: wait (briefly) for the inserting thread to publish, then compare.
    uint32_t id = slot.id.load(std::memory_order_acquire);
    for (int wait = 0; id == 0 && wait < kMaxWaits; ++wait) {
      if (wait >= kSpinsBeforeYield) sched_yield();
      id = slot.id.load(std::memory_order_acquire);
    }
    if (id == 0) continue;  // inserter died (fork) or is stuck: look further
    if (id == kStringTableFullId) {
      *full = true;
      full_drops_.fetch_add(1, std::memory_order_relaxed);
      return id;
    }
    if (Length(id) == length && std::memcmp(Text(id), text, length) == 0) return id;
  }
  *full = true;
  full_drops_.fetch_add(1, std::memory_order_relaxed);
  return kStringTableFullId;
}

const char* StringTable::Text(uint32_t id) const {
  return arena_ + entries_[id].offset;
}

uint32_t StringTable::Length(uint32_t id) const {
  return entries_[id].length_plus_one.load(std::memory_order_acquire) - 1;
}

}  // namespace aiprof::runtime
