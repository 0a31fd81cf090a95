#include "runtime/dynamic/command_parser.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

namespace aiprof::dynamic {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> SplitWords(std::string_view text) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    size_t end = at;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end;
  }
  return words;
}

// A bare word becomes a JSON value: JSON literals and numbers stay as they are,
// on/off become booleans, anything else is a string.
std::string WordToJson(std::string_view word) {
  if (word == "on") return "true";
  if (word == "off") return "false";
  nlohmann::json parsed = nlohmann::json::parse(word, nullptr, false);
  if (!parsed.is_discarded() && !parsed.is_object()) return parsed.dump();
  return nlohmann::json(std::string(word)).dump();
}

bool ParseOptions(std::string_view text, ParsedCommand& command, std::string& error) {
  if (text.empty()) return true;
  if (text.front() == '{') {
    nlohmann::json object = nlohmann::json::parse(text, nullptr, false);
    if (object.is_discarded() || !object.is_object()) {
      error = "start options are not a valid JSON object: " + std::string(text);
      return false;
    }
    for (const auto& [key, value] : object.items()) command.options[key] = value.dump();
    return true;
  }
  for (std::string_view word : SplitWords(text)) {
    size_t equals = word.find('=');
    if (equals == std::string_view::npos || equals == 0 || equals + 1 == word.size()) {
      error = "start option '" + std::string(word) +
              "' is not key=value (example: start task_time=l1 msproftx=on, or start "
              "{\"msproftx\":true})";
      return false;
    }
    std::string key(word.substr(0, equals));
    for (char& c : key) {
      if (c == '-') c = '_';
    }
    command.options[key] = WordToJson(word.substr(equals + 1));
  }
  return true;
}

}  // namespace

ParseResult ParseCommandLine(std::string_view line) {
  ParseResult result;
  line = Trim(line);
  size_t space = line.find_first_of(" \t");
  std::string_view verb = line.substr(0, space);
  std::string_view rest =
      space == std::string_view::npos ? std::string_view() : Trim(line.substr(space));
  if (verb == "start") {
    result.command.verb = CommandVerb::kStart;
    result.ok = ParseOptions(rest, result.command, result.error);
    return result;
  }
  if (verb == "stop" || verb == "status" || verb == "quit") {
    if (!rest.empty()) {
      result.error = std::string(verb) + " takes no arguments";
      return result;
    }
    result.command.verb = verb == "stop"     ? CommandVerb::kStop
                          : verb == "status" ? CommandVerb::kStatus
                                             : CommandVerb::kQuit;
    result.ok = true;
    return result;
  }
  result.error = verb.empty() ? "empty command; commands: start [options], stop, status, quit"
                              : "unknown command '" + std::string(verb) +
                                    "'; commands: start [options], stop, status, quit";
  return result;
}

std::string OptionsToJson(const std::map<std::string, std::string>& options) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, value] : options)
    object[key] = nlohmann::json::parse(value, nullptr, false);
  return object.dump();
}

}  // namespace aiprof::dynamic
