// Text for HTML and SVG (XML) content and attribute values: &, <, > and " escaped.
#pragma once

#include <string>
#include <string_view>

namespace aiprof::exporter {

inline std::string EscapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace aiprof::exporter
