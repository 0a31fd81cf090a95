#include "runtime/sources.h"

#include <cstring>
#include <mutex>
#include <vector>

namespace aiprof::runtime {

namespace {

struct SourceRegistry {
  std::mutex mutex;
  std::vector<aiprof_source> sources;
  std::mutex options_mutex;
  // Every options text ever handed out stays alive: plugins may hold the pointer.
  std::vector<char*> options_texts;
  std::mutex metadata_mutex;
  nlohmann::json metadata = nlohmann::json::object();
};

SourceRegistry& Registry() {
  static SourceRegistry* registry = new SourceRegistry();
  return *registry;
}

std::vector<aiprof_source> Snapshot() {
  SourceRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.sources;
}

}  // namespace

bool RegisterSource(const aiprof_source& source, bool collecting_now) {
  if (source.abi_version != AIPROF_PLUGIN_ABI_VERSION) return false;
  {
    SourceRegistry& registry = Registry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    registry.sources.push_back(source);
  }
  if (collecting_now && source.on_start != nullptr) source.on_start(source.user);
  return true;
}

void RunSourcesStart() {
  for (const aiprof_source& source : Snapshot()) {
    if (source.on_start != nullptr) source.on_start(source.user);
  }
}

void RunSourcesStop() {
  for (const aiprof_source& source : Snapshot()) {
    if (source.on_stop != nullptr) source.on_stop(source.user);
  }
}

void RunSourcesFlush() {
  for (const aiprof_source& source : Snapshot()) {
    if (source.on_flush != nullptr) source.on_flush(source.user);
  }
}

void RunSourcesForkChild() {
  // Locks may have been held by threads that do not exist in the child: start fresh.
  SourceRegistry& registry = Registry();
  new (&registry.mutex) std::mutex();
  new (&registry.options_mutex) std::mutex();
  new (&registry.metadata_mutex) std::mutex();
  for (const aiprof_source& source : registry.sources) {
    if (source.on_fork_child != nullptr) source.on_fork_child(source.user);
  }
}

void SetOptionsJson(const std::string& json) {
  SourceRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.options_mutex);
  char* text = new char[json.size() + 1];
  std::memcpy(text, json.c_str(), json.size() + 1);
  registry.options_texts.push_back(text);
}

const char* OptionsJsonCString() {
  SourceRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.options_mutex);
  return registry.options_texts.empty() ? "{}" : registry.options_texts.back();
}

void SetExtraMetadata(const std::string& key, nlohmann::json value) {
  SourceRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.metadata_mutex);
  registry.metadata[key] = std::move(value);
}

nlohmann::json ExtraMetadata() {
  SourceRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.metadata_mutex);
  return registry.metadata;
}

}  // namespace aiprof::runtime
