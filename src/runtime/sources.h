// Plugin sources registered through plugin.h, the options text they read, and the extra
// metadata they add. Separate locks from the session so callbacks may call back into
// plugin.h (aiprof_options_json, aiprof_add_metadata) while a window starts or stops.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "aiprof/plugin.h"

namespace aiprof::runtime {

// Returns false if the ABI version is not supported.
bool RegisterSource(const aiprof_source& source, bool collecting_now);
void RunSourcesStart();
void RunSourcesStop();
void RunSourcesFlush();
void RunSourcesForkChild();

void SetOptionsJson(const std::string& json);
// Stable until the next SetOptionsJson.
const char* OptionsJsonCString();

void SetExtraMetadata(const std::string& key, nlohmann::json value);
nlohmann::json ExtraMetadata();

}  // namespace aiprof::runtime
