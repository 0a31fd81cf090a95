// Parses one line of the dynamic control protocol: `start [options]`, `stop`, `status`,
// `quit`. Options of `start` are either a JSON object or key=value words, with the keys
// and value types of AIPROF_OPTIONS.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace aiprof::dynamic {

enum class CommandVerb { kStart, kStop, kStatus, kQuit };

struct ParsedCommand {
  CommandVerb verb = CommandVerb::kStatus;
  // Option key -> value as JSON text (e.g. "true", "64", "\"l1\"", "[\"a\"]").
  std::map<std::string, std::string> options;
};

struct ParseResult {
  bool ok = false;
  ParsedCommand command;
  std::string error;  // what is wrong and what is accepted, when !ok
};

ParseResult ParseCommandLine(std::string_view line);

// Options as one JSON object text ("{}" when empty).
std::string OptionsToJson(const std::map<std::string, std::string>& options);

}  // namespace aiprof::dynamic
