// The one JSON text rule of every writer (the exporters' TextWriter, the UI server's
// responses): strings are escaped as JSON requires (quote, backslash, \n \r \t, other
// control characters as \u00XX) and every byte that does not belong to valid UTF-8 becomes
// U+FFFD, written "\ufffd", so a name with bad bytes (a truncated marker message, a
// non-UTF-8 file name) still yields valid JSON, the same in a file and in the UI.
// Numbers: the shortest text that reads back as the same double; the server writes a
// non-finite value as null.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace aiprof::exporter {

// Length of the valid UTF-8 sequence at `s` (`left` bytes readable), or 0 when it is not
// one (stray continuation byte, overlong form, surrogate, beyond U+10FFFF, truncated).
inline size_t Utf8SequenceLength(const unsigned char* s, size_t left) {
  const unsigned char c = s[0];
  const size_t length = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (length == 0 || length > left) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
  }
  if (c == 0xE0 && s[1] < 0xA0) return 0;  // overlong
  if (c == 0xED && s[1] > 0x9F) return 0;  // surrogates
  if (c == 0xF0 && s[1] < 0x90) return 0;  // overlong
  if (c == 0xF4 && s[1] > 0x8F) return 0;  // beyond U+10FFFF
  return length;
}

// Writes `text` as a JSON string literal, quotes included, through `append(string_view)`;
// runs that need no escaping are handed over whole.
template <typename Append>
void WriteJsonString(std::string_view text, Append&& append) {
  static constexpr char kHex[] = "0123456789abcdef";
  append(std::string_view("\"", 1));
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t run = i;
    while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\') ++run;
    if (run > i) {
      append(text.substr(i, run - i));
      i = run;
      continue;
    }
    const unsigned char c = s[i];
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(s + i, n - i);
      if (length == 0) {
        append(std::string_view("\\ufffd"));
        ++i;
      } else {
        append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"':
        append(std::string_view("\\\""));
        break;
      case '\\':
        append(std::string_view("\\\\"));
        break;
      case '\n':
        append(std::string_view("\\n"));
        break;
      case '\r':
        append(std::string_view("\\r"));
        break;
      case '\t':
        append(std::string_view("\\t"));
        break;
      default: {
        const char escape[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        append(std::string_view(escape, 6));
      }
    }
    ++i;
  }
  append(std::string_view("\"", 1));
}

inline void AppendJsonString(std::string& out, std::string_view text) {
  WriteJsonString(text, [&out](std::string_view piece) { out.append(piece); });
}

// A number of a JSON text: the shortest round-trip form; NaN and infinities as null.
inline void AppendJsonNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}
inline void AppendJsonNumber(std::string& out, int64_t value) {
  char text[24];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}
inline void AppendJsonNumber(std::string& out, uint64_t value) {
  char text[24];
  out.append(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace aiprof::exporter
