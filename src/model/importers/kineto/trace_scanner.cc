#include "model/importers/kineto/trace_scanner.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace aiprof::model::kineto {
namespace {

constexpr size_t kNoIndex = SIZE_MAX;
constexpr size_t kMaxProblems = 16;

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Bit i set when byte i of the 16 at `p` is '"', '\\', '{', '}', '[' or ']'.
inline uint32_t StructuralMask16(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  // '[' | 0x20 == '{' and ']' | 0x20 == '}'; no other byte maps to either.
  const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
  const __m128i open = _mm_cmpeq_epi8(folded, _mm_set1_epi8('{'));
  const __m128i close = _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'));
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), _mm_or_si128(open, close))));
#else
  uint32_t mask = 0;
  for (int i = 0; i < 16; ++i) {
    const char c = p[i];
    const char folded = static_cast<char>(c | 0x20);
    if (c == '"' || c == '\\' || folded == '{' || folded == '}') mask |= 1u << i;
  }
  return mask;
#endif
}

// Where a container or string value stands between two windows of data.
struct ValueState {
  int64_t depth = 0;
  bool in_string = false;
  size_t escaped = kNoIndex;  // index of the byte a backslash escapes
};

// One byte of a container or string value that the masks flagged; true at the value's end.
inline bool ValueByte(const char* data, size_t at, ValueState& state) {
  const char c = data[at];
  if (state.in_string) {
    if (at == state.escaped) return false;
    if (c == '\\') {
      state.escaped = at + 1;
    } else if (c == '"') {
      state.in_string = false;
      return state.depth == 0;  // a string value ends with its closing quote
    }
    return false;
  }
  switch (c) {
    case '"':
      state.in_string = true;
      return false;
    case '{':
    case '[':
      ++state.depth;
      return false;
    case '}':
    case ']':
      return --state.depth <= 0;
    default:
      return false;
  }
}

// Advances over [from, to) of a container or string value; the index after its end, or
// kNoIndex when it continues past `to`.
size_t ScanValueBytes(const char* data, size_t from, size_t to, ValueState& state) {
  size_t at = from;
  for (; at + 16 <= to; at += 16) {
    for (uint32_t mask = StructuralMask16(data + at); mask != 0; mask &= mask - 1) {
      const size_t index = at + static_cast<size_t>(__builtin_ctz(mask));
      if (ValueByte(data, index, state)) return index + 1;
    }
  }
  for (; at < to; ++at) {
    const char c = data[at];
    const char folded = static_cast<char>(c | 0x20);
    if ((c == '"' || c == '\\' || folded == '{' || folded == '}') && ValueByte(data, at, state)) {
      return at + 1;
    }
  }
  return kNoIndex;
}

#if defined(__x86_64__)
// The same, 32 bytes at a time where the CPU has AVX2.
__attribute__((target("avx2"))) size_t ScanValueBytesAvx2(const char* data, size_t from, size_t to,
                                                          ValueState& state) {
  size_t at = from;
  for (; at + 32 <= to; at += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + at));
    const __m256i folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    const __m256i hits =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
                                        _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'))),
                        _mm256_or_si256(_mm256_cmpeq_epi8(folded, _mm256_set1_epi8('{')),
                                        _mm256_cmpeq_epi8(folded, _mm256_set1_epi8('}'))));
    for (uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(hits)); mask != 0;
         mask &= mask - 1) {
      const size_t index = at + static_cast<size_t>(__builtin_ctz(mask));
      if (ValueByte(data, index, state)) return index + 1;
    }
  }
  return ScanValueBytes(data, at, to, state);
}

const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
#endif

size_t ScanValue(const char* data, size_t from, size_t to, ValueState& state) {
#if defined(__x86_64__)
  if (kHaveAvx2) return ScanValueBytesAvx2(data, from, to, state);
#endif
  return ScanValueBytes(data, from, to, state);
}

}  // namespace

TraceScanner::TraceScanner(FileInput& input, size_t window_bytes)
    : input_(input), window_(new char[window_bytes + kPadding]), capacity_(window_bytes) {
  // Only the padding after the data is read beyond it; Ensure keeps that initialised.
  std::memset(window_.get(), ' ', kPadding);
}

void TraceScanner::Problem(std::string message) {
  ++report_.problems_total;
  if (report_.problems.size() < kMaxProblems) report_.problems.push_back(std::move(message));
}

void TraceScanner::Skip(size_t from, size_t to, const std::string& why) {
  if (to <= from) return;
  report_.skipped_bytes += to - from;
  ++report_.skipped_regions;
  Problem(why + " at byte " + std::to_string(Offset(from)) + ": " + std::to_string(to - from) +
          " bytes skipped");
}

bool TraceScanner::Ensure(size_t bytes) {
  while (end_ - pos_ < bytes && !input_done_) {
    if (keep_ > 0) {
      // Drop what is no longer needed: the window keeps only the value being read.
      std::memmove(window_.get(), window_.get() + keep_, end_ - keep_);
      window_offset_ += keep_;
      pos_ -= keep_;
      end_ -= keep_;
      keep_ = 0;
    }
    if (end_ == capacity_) {
      // One value larger than the window: grow (memory in proportion to that value).
      const size_t grown = capacity_ * 2;
      std::unique_ptr<char[]> bigger(new char[grown + kPadding]);
      std::memcpy(bigger.get(), window_.get(), end_);
      window_ = std::move(bigger);
      capacity_ = grown;
    }
    const size_t n = input_.Read(window_.get() + end_, capacity_ - end_);
    if (n == 0) {
      input_done_ = true;
    }
    end_ += n;
    report_.bytes += n;
    // simdjson may read up to kPadding bytes past a value: they must be initialised.
    std::memset(window_.get() + end_, ' ', kPadding);
  }
  return pos_ < end_;
}

int TraceScanner::PeekToken() {
  for (;;) {
    keep_ = pos_;
    if (!Ensure(1)) return -1;
    while (pos_ < end_ && IsSpace(window_[pos_])) ++pos_;
    if (pos_ < end_) return static_cast<unsigned char>(window_[pos_]);
  }
}

TraceScanner::End TraceScanner::FindValueEnd(size_t* end) {
  keep_ = pos_;
  Ensure(1);
  const char first = window_[pos_];
  if (first != '{' && first != '[' && first != '"') {
    // A number, true, false or null: up to the next delimiter.
    size_t at = pos_;
    for (;;) {
      while (at < end_ && !IsSpace(window_[at]) && window_[at] != ',' && window_[at] != '}' &&
             window_[at] != ']') {
        ++at;
      }
      if (at < end_ || input_done_) break;
      const size_t before = pos_;
      Ensure(end_ - pos_ + 1);
      at -= before - pos_;
    }
    *end = at;
    return End::kFound;
  }
  ValueState state;
  if (first == '"') {
    state.in_string = true;
    state.escaped = kNoIndex;
  }
  size_t scanned = first == '"' ? pos_ + 1 : pos_;
  for (;;) {
    const size_t found = ScanValue(window_.get(), scanned, end_, state);
    if (found != kNoIndex) {
      *end = found;
      return End::kFound;
    }
    if (input_done_) return End::kEndOfData;
    const size_t before = pos_;
    scanned = end_;
    Ensure(end_ - pos_ + 1);  // compacts: indices move down by `before - pos_`
    const size_t shift = before - pos_;
    scanned -= shift;
    if (state.escaped != kNoIndex) state.escaped -= shift;
    if (scanned >= end_ && input_done_) return End::kEndOfData;
  }
}

void TraceScanner::ScanArray(Handler& handler) {
  report_.found_events = true;
  ++pos_;  // '['
  bool expect_element = true;
  for (;;) {
    const int c = PeekToken();
    if (c < 0) {
      report_.truncated = true;
      Problem("the data ends inside the events array (truncated file?)");
      return;
    }
    if (c == ']') {
      ++pos_;
      return;
    }
    if (!expect_element) {
      if (c == ',') {
        ++pos_;
        expect_element = true;
        continue;
      }
      // Not a separator: resynchronise at the next '{'.
      const uint64_t from = Offset(pos_);
      uint64_t skipped = 0;
      for (;;) {
        const void* brace = std::memchr(window_.get() + pos_, '{', end_ - pos_);
        if (brace != nullptr) {
          const size_t at = static_cast<size_t>(static_cast<const char*>(brace) - window_.get());
          skipped += at - pos_;
          pos_ = at;
          break;
        }
        skipped += end_ - pos_;
        keep_ = pos_ = end_;
        if (!Ensure(1)) break;
      }
      report_.skipped_bytes += skipped;
      ++report_.skipped_regions;
      Problem("malformed bytes between events at byte " + std::to_string(from) + ": " +
              std::to_string(skipped) + " bytes skipped");
      if (pos_ >= end_) {
        report_.truncated = true;
        return;
      }
      expect_element = true;
      continue;
    }
    if (c == ',') {  // an empty element ("[a,,b]"): nothing to read
      Skip(pos_, pos_ + 1, "empty element");
      ++pos_;
      continue;
    }
    size_t value_end = 0;
    const uint64_t offset = Offset(pos_);
    if (FindValueEnd(&value_end) == End::kEndOfData) {
      Skip(pos_, end_, "the data ends inside an event (truncated file?)");
      report_.truncated = true;
      pos_ = end_;
      return;
    }
    ++report_.elements;
    handler.OnEvent(std::string_view(window_.get() + pos_, value_end - pos_), offset);
    pos_ = value_end;
    expect_element = false;
  }
}

void TraceScanner::ScanObject(Handler& handler) {
  ++pos_;  // '{'
  for (;;) {
    int c = PeekToken();
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '}') {
      ++pos_;
      return;
    }
    if (c < 0) {
      report_.truncated = true;
      Problem("the data ends inside the top-level object (truncated file?)");
      return;
    }
    if (c != '"') {
      Problem("malformed top-level member at byte " + std::to_string(Offset(pos_)));
      return;
    }
    size_t key_end = 0;
    if (FindValueEnd(&key_end) == End::kEndOfData) {
      report_.truncated = true;
      return;
    }
    const std::string key(window_.get() + pos_ + 1, key_end - pos_ - 2);
    pos_ = key_end;
    if (PeekToken() != ':') {
      Problem("top-level member \"" + key + "\" has no value at byte " +
              std::to_string(Offset(pos_)));
      return;
    }
    ++pos_;
    c = PeekToken();
    if (c < 0) {
      report_.truncated = true;
      return;
    }
    if (key == "traceEvents" && c == '[') {
      ScanArray(handler);
      if (report_.truncated) return;
      continue;
    }
    size_t value_end = 0;
    const uint64_t offset = Offset(pos_);
    if (FindValueEnd(&value_end) == End::kEndOfData) {
      Skip(pos_, end_, "the data ends inside top-level member \"" + key + "\"");
      report_.truncated = true;
      return;
    }
    handler.OnTopLevel(key, std::string_view(window_.get() + pos_, value_end - pos_), offset);
    pos_ = value_end;
  }
}

TraceScanner::Report TraceScanner::Scan(Handler& handler) {
  int c = PeekToken();
  // A UTF-8 byte order mark.
  if (c == 0xef && Ensure(3) && std::memcmp(window_.get() + pos_, "\xef\xbb\xbf", 3) == 0) {
    pos_ += 3;
    c = PeekToken();
  }
  if (c == '{') {
    ScanObject(handler);
  } else if (c == '[') {
    ScanArray(handler);
  } else {
    report_.not_json = true;
    Problem(c < 0 ? "the file is empty" : "the file is not a JSON trace (no '{' or '[' first)");
  }
  // What follows the trace: whitespace, or bytes that were not read (counted).
  uint64_t rest = 0;
  bool only_space = true;
  for (;;) {
    for (size_t at = pos_; at < end_ && only_space; ++at) only_space = IsSpace(window_[at]);
    rest += end_ - pos_;
    keep_ = pos_ = end_;
    if (!Ensure(1)) break;
  }
  if (!only_space && !report_.not_json) {
    report_.skipped_bytes += rest;
    ++report_.skipped_regions;
    Problem(std::to_string(rest) + " bytes after the end of the trace were not read");
  }
  if (!input_.error().empty()) Problem(input_.error());
  return report_;
}

}  // namespace aiprof::model::kineto
