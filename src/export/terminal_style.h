// Colour for reports printed on a terminal: ANSI colours only when the stream is a terminal
// and NO_COLOR (https://no-color.org) is unset or empty; plain text otherwise, so output
// piped to a file or a CI log carries no escape codes.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace aiprof::exporter {

// Whether output written to `fd` should be coloured.
inline bool ColourWanted(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(fd) == 1;
}

class TerminalStyle {
 public:
  explicit TerminalStyle(bool colour) : colour_(colour) {}
  std::string Bold(std::string_view text) const { return Wrap("1", text); }
  std::string Red(std::string_view text) const { return Wrap("31", text); }
  std::string Green(std::string_view text) const { return Wrap("32", text); }
  std::string Yellow(std::string_view text) const { return Wrap("33", text); }
  std::string Dim(std::string_view text) const { return Wrap("2", text); }

 private:
  std::string Wrap(const char* code, std::string_view text) const {
    if (!colour_) return std::string(text);
    return "\033[" + std::string(code) + "m" + std::string(text) + "\033[0m";
  }
  bool colour_;
};

}  // namespace aiprof::exporter
