// Each subcommand of `aiprof` lives in its own <name>_command.cc and registers itself
// through one Add<Name>Command function called from main.cc. Commands share nothing but
// CLI11 and the exit-code conventions below.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "export/exit_code.h"

namespace aiprof::cli {

// What a command that reads profiles is pointed at, as `--output=PATH` (msprof's form,
// repeatable, comma-separated) or as plain arguments: PROF_* directories, Kineto traces
// (*.json[.gz]) or folders holding them (model/discovery.h finds the runs below).
struct InputPaths {
  std::vector<std::string> output, positional;

  void AddTo(CLI::App* sub) {
    sub->add_option("--output,-o", output,
                    "PROF_* directory, Kineto/torch.profiler trace (.json[.gz]), or a folder "
                    "holding them (searched below); repeat or separate with commas for several")
        ->delimiter(',');
    sub->add_option("inputs", positional, "the same as --output, given as plain arguments");
  }
  // Every path given; throws a usage error naming the command when there is none.
  std::vector<std::string> All(const char* command) const {
    std::vector<std::string> all = output;
    all.insert(all.end(), positional.begin(), positional.end());
    if (all.empty()) {
      std::cerr << command
                << ": give what to read: a PROF_* directory, a Kineto trace or a folder holding "
                   "them (--output=PATH or PATH)\n";
      throw CLI::RuntimeError(kExitUsage);
    }
    return all;
  }
};

}  // namespace aiprof::cli
