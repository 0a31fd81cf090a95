// The exit codes of every aiprof command (docs/cli.md): the jobs of this module return them
// in their results and the CLI exits with them. In launch mode the app's own code is
// returned instead.
#pragma once

namespace aiprof {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the operation failed (I/O, parse)
inline constexpr int kExitUsage = 2;    // invalid option, value or combination; bad input dir

}  // namespace aiprof
