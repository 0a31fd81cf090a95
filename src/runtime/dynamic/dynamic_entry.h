// How the runtime turns dynamic collection on at load: the control socket when the mode
// is "dynamic", dynamic_profile when AIPROF_CONFIG_PATH / PROF_CONFIG_PATH is set.
#pragma once

namespace aiprof::dynamic {

// Called once at load, before the AIPROF_OPTIONS start (which opens no window in dynamic
// mode). Starts the control channel when AIPROF_OPTIONS has "mode": "dynamic" or the
// environment has AIPROF_MODE=dynamic, and dynamic_profile when AIPROF_CONFIG_PATH /
// PROF_CONFIG_PATH names a directory. Errors go to stderr; the job runs on.
void StartDynamicCollectionIfRequested();

// From the runtime's SIGTERM/SIGINT handler before the process dies by the signal (exit
// handlers do not run then): removes the control socket file. Async-signal-safe.
void RemoveControlSocketFromSignal();

}  // namespace aiprof::dynamic
