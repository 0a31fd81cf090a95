// Each subcommand of `aiprof` lives in its own <name>_command.cc and registers itself
// through one Add<Name>Command function called from main.cc. Commands share nothing but
// CLI11 and the exit-code conventions below.
#pragma once

#include <CLI/CLI.hpp>

namespace aiprof::cli {

// Exit codes: the app's own code in launch mode; otherwise these.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the operation failed (I/O, parse)
inline constexpr int kExitUsage = 2;    // invalid option, value or combination; bad input dir

}  // namespace aiprof::cli
