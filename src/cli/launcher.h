// Runs the app under the runtime: LD_PRELOAD, AIPROF_OPTIONS, signal forwarding, the host
// sampler, and the exit code of the app.
#pragma once

#include <string>

#include "cli/collect_options.h"

namespace aiprof::cli {

// The directory that holds libaiprof.so: $AIPROF_LIB_DIR, else <dir of aiprof>/../lib.
// "" and `error` (naming the places looked at) when it is not there.
std::string FindRuntimeLibDir(std::string* error);

// Runs the collection and returns the app's exit code, 128+signal if a signal killed it,
// 127 if it could not be started, or kExitFailure when the launcher itself failed.
int RunCollection(const CollectConfig& config);

}  // namespace aiprof::cli
