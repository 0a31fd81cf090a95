// Case-insensitive reading of names (operators, ranges, hosts, layouts): one rule for every
// reader. Only A-Z fold; other bytes, UTF-8 included, compare as they are, so the answer
// never depends on the process's locale.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace aiprof::model {

constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string AsciiLowered(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = AsciiLower(c);
  return lower;
}

inline bool EqualNoCase(char a, char b) {
  return AsciiLower(a) == AsciiLower(b);
}

inline bool ContainsNoCase(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), EqualNoCase) != text.end();
}

inline bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), EqualNoCase);
}

}  // namespace aiprof::model
