#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/advice/advice.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {

Thresholds Thresholds::Defaults() {
  Thresholds thresholds;
  for (const RuleDefinition* rule : AllRules()) {
    for (const ThresholdSpec& spec : rule->thresholds) thresholds.specs_[spec.key] = spec;
  }
  return thresholds;
}

double Thresholds::Get(const std::string& key) const {
  auto it = specs_.find(key);
  if (it == specs_.end()) throw std::out_of_range("advice threshold not declared: " + key);
  return it->second.value;
}

bool Thresholds::Set(const std::string& key, double value, std::string* error) {
  auto it = specs_.find(key);
  if (it == specs_.end()) {
    std::string known;
    for (const auto& [name, spec] : specs_) known += (known.empty() ? "" : ", ") + name;
    *error = "unknown threshold '" + key + "'; known thresholds: " + known;
    return false;
  }
  if (!(value >= 0)) {
    *error = "threshold '" + key + "' must be a number >= 0";
    return false;
  }
  it->second.value = value;
  return true;
}

bool Thresholds::LoadOverrides(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path +
             ": cannot be read; give a JSON file such as "
             "{\"data_loading\": {\"step_share\": 0.1}}";
    return false;
  }
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    *error = path + ": not valid JSON (" + e.what() + ")";
    return false;
  }
  if (!config.is_object()) {
    *error = path +
             ": expected a JSON object of thresholds, e.g. "
             "{\"data_loading\": {\"step_share\": 0.1}}";
    return false;
  }
  auto set = [&](const std::string& key, const nlohmann::json& value) {
    if (!value.is_number()) {
      *error = path + ": threshold '" + key + "' must be a number, not " + value.dump();
      return false;
    }
    if (!Set(key, value.get<double>(), error)) {
      *error = path + ": " + *error;
      return false;
    }
    return true;
  };
  for (const auto& [rule, value] : config.items()) {
    if (value.is_object()) {
      for (const auto& [name, number] : value.items()) {
        if (!set(rule + "." + name, number)) return false;
      }
    } else if (!set(rule, value)) {
      return false;
    }
  }
  return true;
}

}  // namespace aiprof::analysis::advice
