// Number formatting shared by the `aiprof analyze` report's sections.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace aiprof::exporter::report {

inline std::string Line(const char* format, auto... values) {
  char text[320];
  std::snprintf(text, sizeof(text), format, values...);
  return text;
}

// `part` as a percentage of `whole`; 0 when `whole` is empty.
inline double Percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

inline double Ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace aiprof::exporter::report
