#include "sources/torch/plugin_settings.h"

#include <nlohmann/json.hpp>
#include <string>

namespace aiprof::torch_source {

PluginSettings ParsePluginSettings(const char* options_json) {
  PluginSettings settings;
  const auto options = nlohmann::json::parse(options_json ? options_json : "{}", nullptr,
                                             /*allow_exceptions=*/false);
  if (!options.is_object()) return settings;
  const auto flag = [&](const char* key, bool fallback) {
    const auto it = options.find(key);
    return it != options.end() && it->is_boolean() ? it->get<bool>() : fallback;
  };
  const auto task_time = options.find("task_time");
  if (task_time != options.end() && task_time->is_string()) {
    settings.operators = task_time->get<std::string>() != "off";
  }
  settings.record_shapes = flag("record_shapes", false);
  settings.with_flops = flag("with_flops", false);
  settings.profile_memory = flag("profile_memory", false);
  return settings;
}

}  // namespace aiprof::torch_source
