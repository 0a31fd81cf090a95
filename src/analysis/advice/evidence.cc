#include "analysis/advice/evidence.h"

#include <cstdio>

namespace aiprof::analysis::advice {

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string Ms(int64_t ns) {
  return Fixed(static_cast<double>(ns) / 1e6, 3) + " ms";
}

std::string Us(double ns) {
  return Fixed(ns / 1e3, 1) + " µs";
}

std::string Percent(double share) {
  return Fixed(100.0 * share, 1) + "%";
}

std::string Bytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30)) return Fixed(b / (1 << 30), 2) + " GiB";
  if (bytes >= (int64_t{1} << 20)) return Fixed(b / (1 << 20), 1) + " MiB";
  if (bytes >= (int64_t{1} << 10)) return Fixed(b / (1 << 10), 1) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace aiprof::analysis::advice
