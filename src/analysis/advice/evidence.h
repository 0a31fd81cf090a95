// Formatting of the figures rules put into their detail lines and evidence tables, so every
// rule writes times, shares and sizes the same way.
#pragma once

#include <cstdint>
#include <string>

namespace aiprof::analysis::advice {

std::string Ms(int64_t ns);         // "12.345 ms"
std::string Us(double ns);          // "12.3 µs"
std::string Percent(double share);  // 0.123 → "12.3%"
std::string Bytes(int64_t bytes);   // "1.50 GiB", "12.0 MiB", "512 B"
std::string Fixed(double value, int decimals);

}  // namespace aiprof::analysis::advice
