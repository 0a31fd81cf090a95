#include "runtime/options.h"

#include <nlohmann/json.hpp>

#include "runtime/option_limits.h"

namespace aiprof::runtime {

namespace {

using nlohmann::json;

// Checks every value of `object` that option_limits.h describes (nested objects' keys as
// "outer.inner"): right type, in range, one of the choices. "" when all are acceptable.
std::string CheckValues(const json& object, const std::string& prefix = "") {
  for (const auto& [name, value] : object.items()) {
    const std::string key = prefix + name;
    if (value.is_null()) continue;
    if (value.is_object()) {
      if (std::string problem = CheckValues(value, key + "."); !problem.empty()) return problem;
      continue;
    }
    if (const NumericOption* numeric = FindNumericOption(key)) {
      if (!value.is_number()) {
        return OptionLabel(key, numeric->cli_name) + ": expects a number, not " +
               value.dump().substr(0, 100);
      }
      if (std::string problem = CheckNumericOption(key, value.get<double>()); !problem.empty()) {
        return problem;
      }
    } else if (const ChoiceOption* choice = FindChoiceOption(key)) {
      if (!value.is_string()) {
        return OptionLabel(key, choice->cli_name) + ": expects a string, not " +
               value.dump().substr(0, 100);
      }
      if (std::string problem = CheckChoiceOption(key, value.get<std::string>());
          !problem.empty()) {
        return problem;
      }
    }
  }
  return "";
}

// Applies every known key of `object` to the typed fields. Throws json exceptions on
// type mismatches, which the callers turn into error text naming the key.
void ApplyKnownKeys(const json& object, Options* options, std::string* current_key) {
  auto get = [&](const char* key, auto* field) {
    auto found = object.find(key);
    if (found == object.end() || found->is_null()) return;
    *current_key = key;
    found->get_to(*field);
  };
  get("output", &options->output);
  get("mode", &options->mode);
  get("msproftx", &options->msproftx);
  get("mstx_domain_include", &options->mstx_domain_include);
  get("mstx_domain_exclude", &options->mstx_domain_exclude);
  get("buffer_mb", &options->buffer_mb);
  get("flush_interval_ms", &options->flush_interval_ms);
  get("compress", &options->compress);
  get("storage_limit_mb", &options->storage_limit_mb);
  get("delay_s", &options->delay_s);
  get("duration_s", &options->duration_s);
  get("launch_realtime_ns", &options->launch_realtime_ns);
  get("launcher_pid", &options->launcher_pid);
  get("follow_children", &options->follow_children);
  get("seq", &options->seq);
}

bool Apply(json object, Options* options, std::string* error) {
  if (std::string problem = CheckValues(object); !problem.empty()) {
    *error = problem;
    return false;
  }
  std::string key;
  Options updated = *options;
  try {
    ApplyKnownKeys(object, &updated, &key);
  } catch (const std::exception& e) {
    *error = "AIPROF option '" + key + "': " + e.what();
    return false;
  }
  json merged = json::parse(options->json, nullptr, false);
  if (!merged.is_object()) merged = json::object();
  merged.update(object);
  updated.json = merged.dump();
  *options = std::move(updated);
  return true;
}

}  // namespace

bool ParseOptions(const std::string& json_text, Options* options, std::string* error) {
  json object = json::parse(json_text, nullptr, false);
  if (!object.is_object()) {
    *error = "AIPROF_OPTIONS is not a JSON object: " + json_text.substr(0, 200);
    return false;
  }
  return Apply(std::move(object), options, error);
}

bool SetOption(Options* options, const std::string& key, const std::string& json_value,
               std::string* error) {
  json value = json::parse(json_value, nullptr, false);
  if (value.is_discarded()) {
    *error = "option '" + key + "': value is not JSON text: " + json_value.substr(0, 200);
    return false;
  }
  json object = json::object();
  object[key] = std::move(value);
  return Apply(std::move(object), options, error);
}

}  // namespace aiprof::runtime
