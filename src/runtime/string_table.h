// Lock-free string interning. Open addressing over a preallocated slot array keyed by a
// content hash; string bytes live in a preallocated arena. Ids are dense (0 = ""), so the
// writer emits new strings by walking ids in order until it meets one not yet published.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace aiprof::runtime {

inline constexpr uint32_t kStringTableFullId = 1;  // "<string table full>"

class StringTable {
 public:
  // Capacities are fixed for the life of the process (memory is reserved, touched on use).
  bool Init(uint32_t max_strings, size_t arena_bytes);
  bool initialized() const { return slots_ != nullptr; }

  // Returns the id of `text`, adding it if new. Full table: kStringTableFullId and
  // `*full` set (the caller counts the drop).
  uint32_t Intern(const char* text, size_t length, bool* full);
  // The interned copy of id (NUL-terminated), valid for the life of the process.
  const char* Text(uint32_t id) const;
  uint32_t Length(uint32_t id) const;

  // Ids below this are assigned; an id is usable once Published(id).
  uint32_t id_count() const {
    uint32_t assigned = next_id_.load(std::memory_order_acquire);
    return assigned < max_strings_ ? assigned : max_strings_;
  }
  bool Published(uint32_t id) const {
    return entries_[id].length_plus_one.load(std::memory_order_acquire) != 0;
  }
  uint64_t full_drops() const { return full_drops_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    std::atomic<uint64_t> hash;  // 0 = empty
    std::atomic<uint32_t> id;    // 0 until the inserting thread published the string
  };
  struct Entry {
    std::atomic<uint32_t> length_plus_one;  // 0 = not yet published
    uint32_t offset;
  };
  uint32_t Publish(const char* text, size_t length, bool* full);

  Slot* slots_ = nullptr;
  Entry* entries_ = nullptr;
  char* arena_ = nullptr;
  uint32_t slot_mask_ = 0;
  uint32_t max_strings_ = 0;
  size_t arena_bytes_ = 0;
  std::atomic<size_t> arena_used_{0};
  std::atomic<uint32_t> next_id_{0};
  std::atomic<uint64_t> full_drops_{0};
};

}  // namespace aiprof::runtime
