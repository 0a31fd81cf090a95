#include "cli/command.h"

namespace aiprof::cli {
void AddExportCommand(CLI::App& app);
void AddQueryCommand(CLI::App& app);
}  // namespace aiprof::cli

int main(int argc, char** argv) {
  CLI::App app("aiprof export/query (test entry point)");
  app.require_subcommand(1);
  aiprof::cli::AddExportCommand(app);
  aiprof::cli::AddQueryCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; any invalid option or value is a usage error.
    return app.exit(e) == 0 ? 0 : aiprof::kExitUsage;
  }
  return 0;
}
