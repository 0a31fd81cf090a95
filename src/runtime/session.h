// Collection windows. Each StartWindow..StopWindow writes one PROF_* directory with the
// raw file host/data/aiprof.<pid>.data and info.json. The control API, the launcher's
// AIPROF_OPTIONS start, the schedule (profiler.hpp) and the dynamic control channel all
// call these; none of them is on the record path.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/options.h"

namespace aiprof::runtime {

// Exit status in info.json when the process ends with a window open.
inline constexpr int kExitStatusUnknown = -1;

// Opens a window now. Fails if one is open or the directory cannot be created.
bool StartWindow(const Options& options, std::string* error);
// Closes the open window: final flush, end metadata, info.json. `reason` lands in the
// metadata ("stop", "exit", "signal", "storage_limit", ...). No-op without a window.
void StopWindow(const char* reason, int exit_status);
// Starts a window when realtime reaches launch_realtime_ns + delay_s (writer's timer).
bool ScheduleWindow(const Options& options, std::string* error);

bool WindowOpen();
// The PROF_* directory of the open (or last) window, "" if none.
std::string CurrentDir();

// Process exit: stops the window and the writer thread (bounded).
void ShutdownForExit(const char* reason, int exit_status);
// _exit/_Exit skip atexit handlers; the writer thread closes the window instead (no lock
// taken here, so it is safe even when _exit is called from a signal handler). Bounded wait.
bool RequestStopForImmediateExit(int exit_status, int timeout_ms);
// Asks the writer thread to stop the window (async-signal-safe) and waits at most
// `timeout_ms` for it. Returns true if the window was closed.
bool RequestStopFromSignal(int signo, int timeout_ms);
// Asks the writer to flush now and waits at most `timeout_ms` (async-signal-safe).
bool RequestFlushFromSignal(int timeout_ms);

// exec replaces the process without exit handlers: closes the open window first (stop
// reason "exec"). Returns whether one was open, and its options.
bool StopWindowForExec(Options* options);
// The exec failed and the process goes on: collects again, into a new directory created
// once there is data.
void ReopenAfterFailedExec(const Options& options);

// Fork handlers (pthread_atfork).
void PrepareFork();
void ParentAfterFork();
void ChildAfterFork();

}  // namespace aiprof::runtime
