// The per-thread cache from a RecordFunction's name pointer to its string id, which keeps
// aiprof_intern (hashing the text) off the path of every operator but a thread's first of
// each name. Used only by torch_plugin.cc; needs no libtorch header.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "aiprof/plugin.h"
#include "format/torch_flops.h"

namespace aiprof::torch_source {

// Direct-mapped, per thread, so lookups need no synchronisation. A hit needs the same
// pointer and the same text (compared with its terminating NUL, so no strlen); names too
// long to keep a copy of are interned every time. Each entry also remembers whether the
// operator's FLOPs are counted (with_flops).
class NameCache {
 public:
  struct Name {
    uint32_t id;
    bool flop_counted;
  };

  Name Intern(const char* name) {
    const auto key = reinterpret_cast<uintptr_t>(name);
    Entry& entry = entries_[(key >> 3 ^ key >> 13) & (kEntries - 1)];
    if (__builtin_expect(entry.pointer == name && SameText(entry, name), 1)) {
      return {entry.id, entry.flop_counted};
    }
    return InternMiss(entry, name);
  }

 private:
  static constexpr size_t kEntries = 512;
  static constexpr size_t kTextBytes = 64;
  struct Entry {
    const char* pointer = nullptr;
    uint32_t length = 0;
    uint32_t id = 0;
    bool flop_counted = false;
    char text[kTextBytes];
  };

  // Out of line, so the hit path stays small.
  __attribute__((noinline)) static Name InternMiss(Entry& entry, const char* name) {
    const size_t length = std::strlen(name);
    const bool flop_counted = format::IsFlopCountedOperator({name, length});
    const uint32_t id = aiprof_intern(name, length);
    if (id != 0 && length < kTextBytes) {
      entry.pointer = name;
      entry.length = static_cast<uint32_t>(length);
      entry.id = id;
      entry.flop_counted = flop_counted;
      std::memcpy(entry.text, name, length + 1);
    }
    return {id, flop_counted};
  }

  static bool SameWord(const char* cached, const char* given) {
    uint64_t a, b;
    std::memcpy(&a, cached, 8);
    std::memcpy(&b, given, 8);
    return a == b;
  }
  // The cached text and its NUL against `name`, 8 bytes at a time, inline: operator names
  // are short, and a call to libc's memcmp cost more than the comparison. The last word
  // overlaps the one before it rather than finishing byte by byte ("aten::add_" is two
  // loads, not one and three bytes). Reads the same length + 1 bytes of `name` as memcmp
  // would.
  static bool SameText(const Entry& entry, const char* name) {
    const uint32_t bytes = entry.length + 1;
    if (__builtin_expect(bytes < 8, 0)) return std::memcmp(entry.text, name, bytes) == 0;
    for (uint32_t at = 0; at + 8 < bytes; at += 8) {
      if (!SameWord(entry.text + at, name + at)) return false;
    }
    return SameWord(entry.text + bytes - 8, name + bytes - 8);
  }

  std::array<Entry, kEntries> entries_{};
};

}  // namespace aiprof::torch_source
