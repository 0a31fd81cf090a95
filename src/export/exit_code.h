// The exit codes of every aiprof command (docs/cli.md): the jobs of this module return them
// in their results and the CLI exits with them. In launch mode the app's own code is
// returned instead.
#pragma once

#include <cstddef>

namespace aiprof {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the operation failed (I/O, parse)
inline constexpr int kExitUsage = 2;    // invalid option, value or combination; bad input dir

// The exit code of a command over several directories: a failure when any failed, or when
// some were refused (bad input) and others done; a usage error when every one was refused.
inline int ExitCodeOfDirectories(bool failed, bool refused, size_t done) {
  if (failed) return kExitFailure;
  if (refused) return done > 0 ? kExitFailure : kExitUsage;
  return kExitOk;
}

}  // namespace aiprof
