// How the runtime turns dynamic collection on at load: the control socket when the mode
// is "dynamic", dynamic_profile when AIPROF_CONFIG_PATH / PROF_CONFIG_PATH is set.
#pragma once

#include <string>

namespace aiprof::dynamic {

// Called once at load. options_json: AIPROF_OPTIONS as given ("" when absent). Starts the
// control channel when its "mode" or the AIPROF_MODE environment variable is "dynamic", and
// dynamic_profile when AIPROF_CONFIG_PATH / PROF_CONFIG_PATH names a directory. Returns true
// in dynamic mode: windows then come from the control channel only. Errors go to stderr;
// the job runs on.
bool StartDynamicCollectionIfRequested(const std::string& options_json);

}  // namespace aiprof::dynamic
