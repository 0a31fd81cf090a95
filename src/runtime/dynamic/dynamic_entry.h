// How the runtime turns dynamic collection on at load: the control socket when the mode
// is "dynamic", dynamic_profile when AIPROF_CONFIG_PATH / PROF_CONFIG_PATH is set.
#pragma once

#include <string>

namespace aiprof::dynamic {

// mode: the "mode" of AIPROF_OPTIONS ("" when absent). Starts the control channel when it
// or the AIPROF_MODE environment variable says "dynamic". Errors go to stderr; the job runs on.
void StartDynamicCollectionIfRequested(const std::string& mode);

}  // namespace aiprof::dynamic
