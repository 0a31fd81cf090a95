// The `aiprof` command: nsys-style subcommands (collect, export, query, dynamic, ...) plus
// the msprof forms, which are rewritten to a subcommand before parsing:
//   aiprof [options] <app> [args]         -> aiprof collect [options] <app> [args]
//   aiprof --application="<app> <args>"   -> aiprof collect --application=...
//   aiprof --export=on [options]          -> aiprof export [options]   (same for query,
//                                            dynamic, analyze)
// Every <name>_command.cc in this folder registers itself; CMake lists them in commands.inc.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"

#define AIPROF_COMMAND(Name) void Add##Name##Command(CLI::App& app);
namespace aiprof::cli {
#include "commands.inc"
}  // namespace aiprof::cli
#undef AIPROF_COMMAND

namespace {

bool IsOption(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-';
}

// Returns the argument list with a subcommand first. `error` is set for msprof modes that
// have no counterpart here.
std::vector<std::string> ToSubcommandForm(const std::vector<std::string>& args, const CLI::App& app,
                                          std::string* error) {
  if (args.empty()) return args;
  const std::string& first = args.front();
  if (!IsOption(first)) {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known |= sub->get_name() == first;
    if (known) return args;
  }
  if (first == "-h" || first == "--help" || first == "--version") return args;
  static const std::pair<const char*, const char*> kModes[] = {{"--export=on", "export"},
                                                               {"--query=on", "query"},
                                                               {"--dynamic=on", "dynamic"},
                                                               {"--analyze=on", "analyze"}};
  for (size_t i = 0; i < args.size() && IsOption(args[i]); ++i) {
    for (const auto& [flag, command] : kModes) {
      if (args[i] != flag) continue;
      bool available = false;
      for (const CLI::App* sub : app.get_subcommands({})) available |= sub->get_name() == command;
      if (!available) {
        *error = std::string(flag) + ": this build of aiprof has no '" + command + "' command";
        return {};
      }
      std::vector<std::string> rewritten = {command};
      for (size_t j = 0; j < args.size(); ++j) {
        if (j != i) rewritten.push_back(args[j]);
      }
      return rewritten;
    }
    if (args[i] == "--parse=on") {
      *error = args[i] + ": not a separate step in aiprof; `aiprof export` parses and analyses";
      return {};
    }
  }
  std::vector<std::string> rewritten = {"collect"};
  rewritten.insert(rewritten.end(), args.begin(), args.end());
  return rewritten;
}

// "--output=" with nothing after '=' would make CLI11 take the next argument (the program to
// run) as the value. Returns the first such option before the program, or "".
std::string EmptyOptionValue(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--" || !IsOption(arg)) break;
    if (arg.size() > 3 && arg.starts_with("--") && arg.back() == '=') return arg;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace aiprof;
  using namespace aiprof::cli;
  CLI::App app(
      "aiprof: performance profiler for AI training and inference jobs.\n"
      "msprof forms also work: aiprof [collect options] <app> [args], "
      "aiprof --export=on ..., aiprof --query=on ..., aiprof --dynamic=on ...",
      "aiprof");
  app.set_version_flag("--version", "aiprof 0.1.0");
  app.require_subcommand(1);
#define AIPROF_COMMAND(Name) Add##Name##Command(app);
#include "commands.inc"
#undef AIPROF_COMMAND

  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args.front() == "-h" || args.front() == "--help") {
    std::cout << app.help("", CLI::AppFormatMode::All);
    if (args.empty()) {
      std::cerr << "aiprof: no command or application given\n";
      return kExitUsage;
    }
    return kExitOk;
  }
  if (std::string empty = EmptyOptionValue(args); !empty.empty()) {
    std::cerr << "aiprof: " << empty << " has no value after '='; give "
              << empty.substr(0, empty.size() - 1) << "=<value>, or leave the option out\n";
    return kExitUsage;
  }
  std::string error;
  args = ToSubcommandForm(args, app, &error);
  if (!error.empty()) {
    std::cerr << "aiprof: " << error << "\n";
    return kExitUsage;
  }
  // CLI11 takes the arguments last-first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::RuntimeError& done) {
    return done.get_exit_code();  // a command finished and chose its exit code
  } catch (const CLI::ParseError& parse_error) {
    app.exit(parse_error);
    return parse_error.get_exit_code() == 0 ? kExitOk : kExitUsage;
  }
  return kExitOk;
}
