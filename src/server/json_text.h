// Appending JSON text to a string: the UI server writes its responses piece by piece (large
// ones are streamed), so it builds text directly instead of a document tree.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace aiprof::server {

inline void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

inline void AppendJsonNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  out += text;
}

inline void AppendJsonNumber(std::string& out, int64_t value) {
  out += std::to_string(value);
}
inline void AppendJsonNumber(std::string& out, uint64_t value) {
  out += std::to_string(value);
}

}  // namespace aiprof::server
