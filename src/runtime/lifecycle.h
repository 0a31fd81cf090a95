// Process lifecycle: start from AIPROF_OPTIONS at load, fork handlers, flush at exit and on
// SIGTERM/SIGINT.
#pragma once

namespace aiprof::runtime {

// Installs the SIGTERM/SIGINT handlers once (they chain to whatever was installed before).
void InstallSignalHandlers();
// Registers the fork and exit handlers once.
void InstallProcessHooks();
// Called in a fork child: the runtime's state now belongs to this process.
void NoteForkChild();
// False in a vfork child, which shares the runtime's state with its parent and must leave it
// alone.
bool OwnsRuntimeState();

}  // namespace aiprof::runtime
