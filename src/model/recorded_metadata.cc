#include "model/recorded_metadata.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

namespace aiprof::model {

RecordedMetadata ReadRecordedMetadata(const Model& model) {
  static constexpr std::string_view kUserPrefix = "user.";
  std::map<std::string, std::string> environment, user;
  for (const std::string& text : model.processes.metadata) {
    if (text.empty()) continue;
    const auto metadata = nlohmann::json::parse(text, nullptr, false);
    if (!metadata.is_object()) continue;
    if (auto found = metadata.find("environment"); found != metadata.end() && found->is_object()) {
      for (const auto& [name, value] : found->items()) {
        if (value.is_string()) environment.try_emplace(name, value.get<std::string>());
      }
    }
    auto added = metadata.find("metadata");
    if (added == metadata.end() || !added->is_object()) continue;
    for (const auto& [key, value] : added->items()) {
      // null: unset (the runtime keeps metadata for the process, so it cannot be erased).
      if (!key.starts_with(kUserPrefix) || value.is_null()) continue;
      user.try_emplace(key.substr(kUserPrefix.size()), value.dump());
    }
  }
  return {{environment.begin(), environment.end()}, {user.begin(), user.end()}};
}

}  // namespace aiprof::model
