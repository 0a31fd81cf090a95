#include "model/recorded_metadata.h"

#include <algorithm>
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

std::vector<TensorRoleAt> ReadTensorRoles(const Model& model, uint32_t process) {
  std::vector<TensorRoleAt> roles;
  if (process >= model.processes.size() || model.processes.metadata[process].empty()) return roles;
  const auto metadata = nlohmann::json::parse(model.processes.metadata[process], nullptr, false);
  if (!metadata.is_object()) return roles;
  const auto added = metadata.find("metadata");
  if (added == metadata.end() || !added->is_object()) return roles;
  const auto recorded = added->find("memory_roles");
  if (recorded == added->end() || !recorded->is_object()) return roles;
  static constexpr std::pair<std::string_view, TensorRole> kKeys[] = {
      {"parameter", TensorRole::kParameter},
      {"gradient", TensorRole::kGradient},
      {"optimizer_state", TensorRole::kOptimizerState}};
  for (const auto& [key, role] : kKeys) {
    const auto addresses = recorded->find(key);
    if (addresses == recorded->end() || !addresses->is_array()) continue;
    for (const auto& address : *addresses) {
      if (address.is_number_unsigned()) roles.push_back({address.get<uint64_t>(), role});
    }
  }
  // Stable: of two roles for one address, the one listed first above stays first.
  std::stable_sort(roles.begin(), roles.end());
  roles.erase(std::unique(roles.begin(), roles.end(),
                          [](const TensorRoleAt& a, const TensorRoleAt& b) {
                            return a.address == b.address;
                          }),
              roles.end());
  return roles;
}

}  // namespace aiprof::model
