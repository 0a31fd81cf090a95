// Interning through a small direct-mapped cache in front of the model's string pool: a trace
// repeats the same few hundred names, categories and argument keys millions of times, and
// hashing each whole text for the pool was a fifth of the import's time. The cache keys on
// the length and the first and last eight bytes; a hit is confirmed against the pooled text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "model/string_pool.h"

namespace aiprof::model::kineto {

class StringCache {
 public:
  explicit StringCache(StringPool* pool) : pool_(*pool), entries_(kSize) {}

  StringId Intern(std::string_view text) {
    const uint64_t key = Key(text);
    Entry& entry = entries_[(key ^ (key >> 29)) & (kSize - 1)];
    if (entry.key == key && entry.valid && pool_.Get(entry.id) == text) return entry.id;
    const StringId id = pool_.Intern(text);
    entry = {key, id, true};
    return id;
  }

 private:
  static constexpr size_t kSize = 4096;
  struct Entry {
    uint64_t key = 0;
    StringId id = kNoString;
    bool valid = false;
  };

  static uint64_t Key(std::string_view text) {
    uint64_t head = 0, tail = 0;
    const size_t n = std::min<size_t>(text.size(), 8);
    if (n > 0) {
      std::memcpy(&head, text.data(), n);
      std::memcpy(&tail, text.data() + text.size() - n, n);
    }
    return (head * 0x9e3779b97f4a7c15ull) ^ (tail * 0xc2b2ae3d27d4eb4full) ^
           (uint64_t{text.size()} * 0x165667b19e3779f9ull);
  }

  StringPool& pool_;
  std::vector<Entry> entries_;
};

}  // namespace aiprof::model::kineto
