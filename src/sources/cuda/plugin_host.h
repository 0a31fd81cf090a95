// The runtime functions the CUDA source uses, as a table. The plugin binds it to
// include/aiprof/plugin.h (plugin_main.cc); tests bind it to a real runtime too, or to a
// recorder when they check conversion alone. Keeping the core free of direct plugin.h
// calls lets it be linked into tests without libaiprof.so.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aiprof::cuda {

struct PluginHost {
  uint64_t (*now)();
  uint32_t (*intern)(const char* text, size_t length);
  int (*emit)(const void* record, uint32_t words);
  int (*emit_for_thread)(uint32_t tid, const void* record, uint32_t words);
};

}  // namespace aiprof::cuda
