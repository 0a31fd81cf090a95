// What a collection window asks of the torch plugin, read from the runtime's options JSON
// (aiprof_options_json: the collect options --task-time, --record-shapes, --with-flops,
// --profile-memory). Kept apart from torch_plugin.cc, the one translation unit that
// includes libtorch's slow headers, so that it is tested without them.
#pragma once

namespace aiprof::torch_source {

struct PluginSettings {
  bool operators = true;  // --task-time is not "off"
  bool record_shapes = false;
  bool with_flops = false;
  bool profile_memory = false;
};

// Missing or mistyped keys keep their defaults; text that is not a JSON object (or null)
// gives the defaults.
PluginSettings ParsePluginSettings(const char* options_json);

}  // namespace aiprof::torch_source
